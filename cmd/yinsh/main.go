// Command yinsh is the YINSH Zero command-line tool: rules (perft, replay, show), search, networks,
// self-play, training, evaluation and the engine protocol. Run `yinsh --help` for the command list.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/internal/progress"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// run executes the CLI with the given arguments and streams and returns the process exit code.
// Standard output and error that are terminals are wrapped as progress.Terminals of one screen, so
// that progress bars, logs and results written to them never share a line; others are used as they
// are.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	scr := progress.NewScreen()
	stdout, stderr = scr.Writer(stdout), scr.Writer(stderr)
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	scr.Close()
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		fmt.Fprintln(stderr, "yinsh:", tidyError(err.Error()))
		return 1
	}
	return 0
}

// exitError carries an exit code for errors already reported to the user.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "yinsh",
		Short:         "YINSH Zero: self-play reinforcement learning for the board game YINSH",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionText(),
	}
	root.SetVersionTemplate("{{.Version}}")
	addLogFlags(root)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newPerftCmd(),
		newReplayCmd(),
		newShowCmd(),
		newBenchCmd(),
		newArenaCmd(),
		newRatingsCmd(),
		newEngineCmd(),
		newAnalyzeCmd(),
		newFitCmd(),
		newModelCmd(), newExportCmd(),
		newDatasetsCmd(),
		newSearchCmd(),
		newTrainCmd(),
		newRunsCmd(),
		newSelfplayCmd(),
		newPlayCmd(), newLevelsCmd(),
		newServeCmd(),
		newWorkerCmd(),
		newClusterCmd(),
	)
	registerCompletions(root)
	return root
}
