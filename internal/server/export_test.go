package server

import "net/http"

// Handler is what the server's listener serves: benchmarks call it without a socket between.
func (s *Server) Handler() http.Handler { return s.http.Handler }
