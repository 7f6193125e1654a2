package pgtest

// DataDirForTest returns the cluster's directory.
func (c *Cluster) DataDirForTest() string { return c.dir }

// TemplateDirForTest returns the directory of the template the cluster
// was copied from.
func (c *Cluster) TemplateDirForTest() string {
	templates.Lock()
	defer templates.Unlock()
	return templates.made[c.bin].dir
}
