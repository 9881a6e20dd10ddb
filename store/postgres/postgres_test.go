package postgres_test

import (
	"context"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/postgres"
	"github.com/hitl-dev/hitl/store/postgres/pgtest"
	"github.com/hitl-dev/hitl/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) hitl.Store {
		s, err := postgres.Open(context.Background(), pgtest.Schema(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestNodesMigratingTogether(t *testing.T) {
	url := pgtest.Schema(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := postgres.Open(context.Background(), url, nil)
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatalf("a node starting beside others: %v", err)
		}
	}
}

func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	if _, err := postgres.Open(context.Background(), "postgres://postgres@127.0.0.1:1/none?connect_timeout=2", nil); err == nil {
		t.Fatal("opening an unreachable database succeeded")
	}
}
