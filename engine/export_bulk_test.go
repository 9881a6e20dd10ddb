package engine

// SetMaxBulkAnswers lowers the bulk answers' limit until the returned function restores it, so
// a test can go over it with a few inquiries.
func SetMaxBulkAnswers(n int) (restore func()) {
	maxBulkAnswers = n
	return func() { maxBulkAnswers = MaxBulkAnswers }
}
