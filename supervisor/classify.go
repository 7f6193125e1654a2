package supervisor

// ChainClassify returns a Classify that runs each step on the result of the
// one before, skipping nil steps and keeping the error when a step returns
// nil. Adapters put their own Classify first and the program's after it,
// so that a program's Classify refines the transport's classes instead of
// replacing them.
func ChainClassify(steps ...func(error) error) func(error) error {
	return func(err error) error {
		for _, step := range steps {
			if step == nil || err == nil {
				continue
			}
			if c := step(err); c != nil {
				err = c
			}
		}
		return err
	}
}
