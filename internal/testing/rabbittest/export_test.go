package rabbittest

import "fmt"

// DirForTest returns the broker's directory.
func (b *Broker) DirForTest() string { return b.dir }

// EpmdAddrForTest returns the address of the broker's epmd.
func (b *Broker) EpmdAddrForTest() string { return fmt.Sprintf("%s:%d", Host, b.epmdPort) }
