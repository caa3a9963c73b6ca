package testrun

import "fmt"

// UsageError is an error the user fixes by changing the invocation or its
// inputs (a bad --shard, a report that is not one): the command layer
// reports it as a usage error (commands.UsageError), not a failure. Its
// text names only CLI-only flags, spelled as people type them, so no
// surface spells it differently.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

func usagef(format string, args ...any) UsageError {
	return UsageError{fmt.Errorf(format, args...)}
}
