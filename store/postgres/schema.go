package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// TempSchema creates a schema with a random name prefixed by prefix in the database at base,
// and returns a URL whose connections use it and a function that drops it. Tests and the
// benchmark use it to work on a fresh, private schema of a shared database.
func TempSchema(ctx context.Context, base, prefix string) (string, func() error, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, fmt.Errorf("database URL: %w", err)
	}
	// A plain connection knows none of pgxpool's pool_* settings.
	plain := *u
	pq := plain.Query()
	for k := range pq {
		if strings.HasPrefix(k, "pool_") {
			pq.Del(k)
		}
	}
	plain.RawQuery = pq.Encode()
	base = plain.String()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	b := make([]byte, 6)
	rand.Read(b)
	schema := pgx.Identifier{prefix + hex.EncodeToString(b)}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, err
	}
	drop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
		return err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}
