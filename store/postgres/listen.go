package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// WatchEvents keeps one LISTEN connection and calls hint on each notification. When the
// connection drops it reconnects with backoff; the engine's own timer covers what was missed
// meanwhile, so a lost notification only delays, never loses.
func (s *Store) WatchEvents(ctx context.Context, hint func()) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listen(ctx, hint, func() { backoff = 100 * time.Millisecond })
		if ctx.Err() != nil {
			return
		}
		s.log.Warn("event notifications interrupted; reconnecting", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (s *Store) listen(ctx context.Context, hint func(), connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{Channel}.Sanitize()); err != nil {
		return err
	}
	connected()
	hint() // anything committed while this connection was down
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		hint()
	}
}
