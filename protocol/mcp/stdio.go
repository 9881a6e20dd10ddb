package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport serves MCP on in and out, one JSON-RPC message a line, as the go-sdk's
// StdioTransport does, except that a line that is not a message gets JSON-RPC's error (-32700
// for a line that is not JSON, -32600 for JSON that is no message, with id null) and the
// server reads on. The SDK's own reader decodes the stream as one and stops for good at the
// first line it cannot read, which would end the server: so the lines are checked here first,
// and only messages reach it.
func StdioTransport(in io.Reader, out io.Writer) sdk.Transport {
	return &stdioTransport{in: in, out: out}
}

type stdioTransport struct {
	in  io.Reader
	out io.Writer
}

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	messages, feed := io.Pipe()
	out := &lineWriter{w: t.out}
	go checkLines(t.in, feed, out)
	return (&sdk.IOTransport{Reader: messages, Writer: out}).Connect(ctx)
}

// maxLine is the longest line read; a longer one is refused as the SDK refuses it.
const maxLine = sdk.DefaultMaxLineLength

// checkLines passes the lines of in that are JSON-RPC messages (or batches of them) on to
// feed, and answers the others on out, until in ends or the connection closes feed's reader.
func checkLines(in io.Reader, feed *io.PipeWriter, out *lineWriter) {
	r := bufio.NewReader(in)
	for {
		line, tooLong, err := readLine(r)
		var refusal []byte
		switch trimmed := bytes.TrimSpace(line); {
		case tooLong:
			refusal = lineError(jsonrpc.CodeParseError, fmt.Sprintf("Parse error: a line longer than %d bytes", maxLine))
		case len(trimmed) == 0:
		case !json.Valid(trimmed):
			var v any
			why := json.Unmarshal(trimmed, &v)
			refusal = lineError(jsonrpc.CodeParseError, "Parse error: the line is not JSON ("+why.Error()+")")
		case trimmed[0] == '[': // a batch: the SDK answers it as the protocol version has it
			if _, werr := feed.Write(append(trimmed, '\n')); werr != nil {
				return
			}
		default: // checked as a POST to /mcp is, so that both transports refuse the same messages
			if bad := checkMessage(trimmed, ""); bad != nil {
				refusal = rpcErrorJSON(bad.id, bad.code, bad.message)
			} else if _, werr := feed.Write(append(trimmed, '\n')); werr != nil {
				return
			}
		}
		if refusal != nil {
			if _, werr := out.Write(refusal); werr != nil {
				feed.CloseWithError(werr)
				return
			}
		}
		if err != nil {
			feed.CloseWithError(err) // io.EOF: the SDK reads the end of its input
			return
		}
	}
}

// readLine reads one line, without its newline; a line beyond maxLine is skipped to its end.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		part, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, part...)
			tooLong = len(line) > maxLine
		}
		if err != bufio.ErrBufferFull {
			if tooLong {
				line = nil
			}
			return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
		}
	}
}

// lineError is JSON-RPC's error response to a line with no id that can be read: id null.
func lineError(code int64, message string) []byte { return rpcErrorJSON(nil, code, message) }

// lineWriter writes whole lines, one writer at a time: the SDK's messages (each one Write)
// and the refusals of checkLines share out.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (w *lineWriter) Close() error { return nil }
