package statuspage

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

// screenshotPath is where TestStatusPageInBrowser writes its full-page
// screenshot; "" writes none. A relative path is relative to this
// directory.
var screenshotPath = flag.String("statuspage.screenshot", "", "write the status page's full-page PNG screenshot to this file")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
