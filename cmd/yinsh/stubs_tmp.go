package main

import "github.com/spf13/cobra"

func newPerftCmd() *cobra.Command  { return &cobra.Command{Use: "perft"} }
func newReplayCmd() *cobra.Command { return &cobra.Command{Use: "replay"} }
func newShowCmd() *cobra.Command   { return &cobra.Command{Use: "show"} }
