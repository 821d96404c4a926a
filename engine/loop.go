package engine

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// The protocol loop: reading command lines (in the background while an analysis streams),
// dispatching them to the command table, writing the answers.

// Run reads commands from r and writes answers to w until quit or the end of r. Bad input is answered
// with an error and never ends the loop. Run returns nil on quit or end of input, or the read or write
// error that stopped it.
//
// An analyze command answers "=[id] " and a line break at once, then info lines from a search in
// the background while Run reads on: the next line holding a command stops the analysis (its answer
// is ended by the empty line), then runs. At the end of the input an analysis with a budget runs to
// its end, one without stops at once.
func (e *Engine) Run(r io.Reader, w io.Writer) error {
	lr := &lineReader{br: bufio.NewReaderSize(r, protocol.MaxLine)}
	bw := bufio.NewWriter(w)
	e.quit = false
	for !e.quit {
		l := lr.next()
		if l.err != nil && l.err != io.EOF {
			return l.err
		}
		var an *analysis
		if l.tooLong {
			protocol.WriteAnswer(bw, "", false, protocol.TooLongMessage)
		} else if id, ok, text, answered, a := e.exec(l.line); a != nil {
			an = a
			bw.WriteString("=" + id + " \n") // the analysis writes the rest of the answer
		} else if answered {
			protocol.WriteAnswer(bw, id, ok, text)
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if an != nil {
			if err := e.runAnalysis(an, lr, bw, l.err == io.EOF); err != nil {
				return err
			}
		}
		if l.err == io.EOF {
			return nil
		}
	}
	return nil
}

// runAnalysis runs an analysis on a goroutine of its own, which writes to bw, until the next line
// with a command arrives (it is kept in lr for Run), the analysis spends its budget, or the input
// ends (eof: it already has): then an analysis with a budget runs to its end, one without stops.
func (e *Engine) runAnalysis(an *analysis, lr *lineReader, bw *bufio.Writer, eof bool) error {
	done := make(chan error, 1)
	go func() { done <- an.run(bw) }()
	if eof && !an.b.bounded() {
		an.stop()
	}
	for wait := !eof; wait; {
		select {
		case err := <-done:
			return e.analysisDone(an, err)
		case l := <-lr.readAhead():
			lr.ahead = nil
			blank := !l.tooLong && protocol.Clean(l.line) == ""
			if blank && l.err == nil {
				continue // a blank or comment line holds no command: the analysis goes on
			}
			lr.peeked = &l // Run runs it, or returns its read error or the end of the input
			if !blank || l.err != io.EOF || !an.b.bounded() {
				an.stop()
			}
			wait = false
		}
	}
	return e.analysisDone(an, <-done)
}

// analysisDone returns the analysis' write error; after a failed search the tree is not reused.
func (e *Engine) analysisDone(an *analysis, err error) error {
	if an.failed {
		e.akey = ""
	}
	return err
}

// lineReader reads command lines: in the foreground, or in the background while an analysis runs.
type lineReader struct {
	br     *bufio.Reader
	ahead  chan readResult // a background read in flight (or done and not yet received)
	peeked *readResult     // a line read ahead and not yet run
}

type readResult struct {
	line    string
	tooLong bool
	err     error
}

// next returns the next line: one read ahead, or a new one.
func (lr *lineReader) next() readResult {
	switch {
	case lr.peeked != nil:
		l := *lr.peeked
		lr.peeked = nil
		return l
	case lr.ahead != nil:
		l := <-lr.ahead
		lr.ahead = nil
		return l
	}
	return lr.read()
}

func (lr *lineReader) read() readResult {
	line, tooLong, err := protocol.ReadLine(lr.br)
	return readResult{string(line), tooLong, err}
}

// readAhead starts reading the next line in the background, unless a read is in flight, and returns
// the channel its result comes on. Who receives it sets lr.ahead to nil.
func (lr *lineReader) readAhead() <-chan readResult {
	if lr.ahead == nil {
		ch := make(chan readResult, 1)
		go func() { ch <- lr.read() }()
		lr.ahead = ch
	}
	return lr.ahead
}

// Exec runs one command line and returns the answer: its id (empty if none), success, and the result
// or error message. answered is false for lines that carry no command (blank lines and comments), which get
// no answer. Exec cannot stream: it runs an analyze command with a budget to its end and returns all
// its info lines (the bytes Run writes), and refuses one without a budget.
func (e *Engine) Exec(line string) (id string, ok bool, text string, answered bool) {
	id, ok, text, answered, an := e.exec(line)
	if an != nil {
		text, err := runAnalysisSync(an)
		e.analysisDone(an, nil)
		if err != nil {
			return id, false, err.Error(), true
		}
		return id, true, text, true
	}
	return id, ok, text, answered
}

// exec runs one command line as Exec does, except for analyze, whose analysis it returns to run.
func (e *Engine) exec(line string) (id string, ok bool, text string, answered bool, an *analysis) {
	line = protocol.Clean(line)
	if line == "" {
		return "", false, "", false, nil
	}
	f := strings.Fields(line)
	if c := f[0][0]; c >= '0' && c <= '9' {
		if !protocol.ValidID(f[0]) {
			return "", false, fmt.Sprintf("malformed id %q (want an integer of at most 18 digits)", f[0]), true, nil
		}
		id, f = f[0], f[1:]
		if len(f) == 0 {
			return id, false, "missing command after the id", true, nil
		}
	}
	name, args := strings.ToLower(f[0]), f[1:]
	cmd, found := commandIndex[name]
	if !found {
		return id, false, fmt.Sprintf("unknown command %q (list_commands lists them)", f[0]), true, nil
	}
	if len(args) < cmd.minArgs || cmd.maxArgs >= 0 && len(args) > cmd.maxArgs {
		return id, false, "usage: " + cmd.usage(), true, nil
	}
	e.pending = nil
	res, err := cmd.run(e, args)
	if err != nil {
		return id, false, err.Error(), true, nil
	}
	an, e.pending = e.pending, nil
	return id, true, res, true, an
}
