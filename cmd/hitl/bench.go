package main

import "github.com/spf13/cobra"

func benchCmd() *cobra.Command {
	return &cobra.Command{Use: "bench", Short: "Measure wake latency, throughput, timeout precision and memory"}
}
