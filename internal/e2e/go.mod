module github.com/redial-go/redial/internal/e2e

go 1.26.0

require github.com/redial-go/redial v0.0.0

replace github.com/redial-go/redial => ../..
