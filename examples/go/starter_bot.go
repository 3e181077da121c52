// A starter bot for stratego-host in plain Go (standard library only): it plays random
// legal moves. Copy it, rename it, and put your strategy where the comments say so.
//
// Build and run (from the repository root):
//
//	go build -o /tmp/go-starter examples/go/starter_bot.go
//	stratego-host check "env GOMAXPROCS=1 /tmp/go-starter"
//
// The protocol (protocol.md): the host writes one JSON object per line to our stdin; we
// answer each request with one JSON object on one line of stdout, flushed at once. Logs go
// to stderr.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
)

// The host's messages, as far as this bot reads them: encoding/json leaves the other
// fields out. Add the ones your strategy needs (protocol.md lists them all).
type hello struct {
	// The seed is 0 to 2^64-1: keep it as the number's text and parse it with
	// strconv.ParseUint. (Decoding into an interface{} would give a float64, which rounds
	// it above 2^53; a uint64 field would do too.)
	Seed json.Number `json:"seed"`
}

type setupRequest struct {
	Squares []string       `json:"squares"`
	Pieces  map[string]int `json:"pieces"`
	Fixed   *string        `json:"fixed"` // present when the event chose our setup
}

type piece struct {
	Square string `json:"square"`
	Color  string `json:"color"`
	Rank   string `json:"rank"` // "" for an opponent's piece not yet revealed
	Moved  bool   `json:"moved"`
}

type turn struct {
	Ply        int      `json:"ply"`
	LegalMoves []string `json:"legal_moves"`
	Pieces     []piece  `json:"pieces"`
}

type gameOver struct {
	Result string `json:"result"`
	Reason string `json:"reason"`
}

// The answers, written with encoding/json.
type ready struct {
	Type      string `json:"type"`
	Name      string `json:"name"`
	Version   string `json:"version"`
	MultiGame bool   `json:"multi_game"`
	// single_threaded: we compute on one goroutine and only on our own turn. The Go runtime
	// has threads of its own (the scheduler's monitor, the garbage collector's workers),
	// but they work when we allocate, during our turn; run the bot with GOMAXPROCS=1 (as
	// above) so that the collector's workers run on our thread. If you start goroutines that
	// think while the opponent does, say false.
	SingleThreaded bool `json:"single_threaded"`
}

type setup struct {
	Type       string `json:"type"`
	Deployment string `json:"deployment"`
}

type move struct {
	Type string `json:"type"`
	Move string `json:"move"`
	Ply  int    `json:"ply"`
}

var out = bufio.NewWriter(os.Stdout)

// send writes one message as one line, and flushes: unflushed answers never arrive.
func send(msg any) {
	line, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	out.Write(line)
	out.WriteByte('\n')
	if err := out.Flush(); err != nil {
		os.Exit(0) // the host closed our output: the game is over
	}
}

// decode reads one line into v, or stops the bot with the reason on stderr.
func decode(line []byte, v any) {
	if err := json.Unmarshal(line, v); err != nil {
		fmt.Fprintf(os.Stderr, "cannot read %q: %v\n", line, err)
		os.Exit(1)
	}
}

// rng is SplitMix64: the same seed gives the same game.
type rng struct{ state uint64 }

func (r *rng) next() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// below returns a number in 0..n-1 (n > 0).
func (r *rng) below(n int) int { return int(((r.next() >> 32) * uint64(n)) >> 32) }

// ---- WHERE TO ADD YOUR STRATEGY --------------------------------------------------------
// chooseSetup gets the setup_request, chooseMove the turn. A turn's "pieces" shows the
// board as you may see it (your ranks, the opponent's once revealed), "plies" what happened
// since your last turn, "clock" your time: add the fields you need to the types above. Keep your
// own state in a struct, and reset it on "hello": one process plays several games.

// chooseSetup places the army at random on the setup squares, in pairs form.
func chooseSetup(req *setupRequest, r *rng) string {
	if req.Fixed != nil {
		return *req.Fixed // the event chose our setup: echo it
	}
	// Go's map order changes from run to run: sort the names, so that the same seed
	// gives the same setup.
	names := make([]string, 0, len(req.Pieces))
	for name := range req.Pieces {
		names = append(names, name)
	}
	sort.Strings(names)
	var army []string
	for _, name := range names {
		for i := 0; i < req.Pieces[name]; i++ {
			army = append(army, name)
		}
	}
	squares := append([]string(nil), req.Squares...)
	for i := len(squares) - 1; i > 0; i-- {
		j := r.below(i + 1)
		squares[i], squares[j] = squares[j], squares[i]
	}
	pairs := ""
	for i := 0; i < len(army) && i < len(squares); i++ {
		if i > 0 {
			pairs += " "
		}
		pairs += squares[i] + "=" + army[i]
	}
	return pairs
}

// chooseMove picks one of the turn's legal moves (never empty) at random.
func chooseMove(t *turn, r *rng) string {
	return t.LegalMoves[r.below(len(t.LegalMoves))]
}

// ------------------------------------------------------------------------------------------

func main() {
	in := bufio.NewReader(os.Stdin)
	r := &rng{}
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return // the end of input means quit
		}
		var head struct {
			Type string `json:"type"`
		}
		decode(line, &head)
		switch head.Type {
		case "hello":
			var h hello
			decode(line, &h)
			seed, err := strconv.ParseUint(string(h.Seed), 10, 64)
			if err != nil {
				fmt.Fprintf(os.Stderr, "bad seed %q: %v\n", h.Seed, err)
				os.Exit(1)
			}
			r = &rng{state: seed}
			send(ready{Type: "ready", Name: "go-starter", Version: "1", MultiGame: true, SingleThreaded: true})
		case "setup_request":
			var req setupRequest
			decode(line, &req)
			send(setup{Type: "setup", Deployment: chooseSetup(&req, r)})
		case "turn":
			var t turn
			decode(line, &t)
			send(move{Type: "move", Move: chooseMove(&t, r), Ply: t.Ply})
		case "game_over":
			var over gameOver
			decode(line, &over)
			fmt.Fprintf(os.Stderr, "game over: %s (%s)\n", over.Result, over.Reason)
		case "quit":
			return
		}
		// Any other type comes from a newer host: ignore it.
	}
}
