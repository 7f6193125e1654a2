package pgtest

// DataDirForTest returns the cluster's directory.
func (c *Cluster) DataDirForTest() string { return c.dir }
