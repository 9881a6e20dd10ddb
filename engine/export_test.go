package engine

import (
	"context"

	"github.com/hitl-dev/hitl"
)

// SetValidating makes e call f as it validates an answer.
func SetValidating(e *Engine, f func(*hitl.Inquiry)) { e.validating = f }

// Sweep runs the housekeeping once, now, and returns how many idempotency keys it removed.
func Sweep(e *Engine) int { return e.sweep(context.Background()) }
