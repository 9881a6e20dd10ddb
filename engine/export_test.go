package engine

import "github.com/hitl-dev/hitl"

// SetValidating makes e call f as it validates an answer.
func SetValidating(e *Engine, f func(*hitl.Inquiry)) { e.validating = f }
