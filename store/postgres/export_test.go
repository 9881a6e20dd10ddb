package postgres

import "context"

// PreparedStatements are the texts of the statements prepared on the connection the pool
// gives next: with pool_max_conns=1, the one every read ran on.
func (s *Store) PreparedStatements(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, "SELECT statement FROM pg_prepared_statements")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return nil, err
		}
		out = append(out, text)
	}
	return out, rows.Err()
}
