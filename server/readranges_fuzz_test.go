package server

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/cosid-go/cosid"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
)

// FuzzReadRanges_Asks plays any sequence of client messages through a ReadRanges
// call (script: a byte pair a message, its kind and its want) and checks what the
// stream promises whatever the client sends: it never sends a range more than the
// messages it took asked for; ending cleanly it has sent every range asked, each
// of the size asked and after the one before; refusing, it answers 400.
func FuzzReadRanges_Asks(f *testing.F) {
	f.Add([]byte{0, 3, 0, 2, 0, 1})       // ask 3, then 2 and 1 more
	f.Add([]byte{0, 0, 0, 0})             // a later message that asks for nothing
	f.Add([]byte{1, 1, 0, 1})             // the first message names no generator
	f.Add([]byte{0, 127, 2, 4})           // a later message sets the size
	f.Add([]byte{0, 255, 0, 255, 0, 255}) // past the read-ahead: each 255 is 1,020 ranges
	f.Add([]byte{3, 1, 0, 1})             // size 0
	f.Add([]byte{0, 0x80, 0, 5})          // a negative want
	f.Add([]byte{})                       // no message at all
	s := newServer(f, nil)
	ids := &idService{s: s}
	f.Fuzz(func(t *testing.T, script []byte) {
		const size = 3
		var msgs []*cosidv1.ReadRangesRequest
		for i := 0; i+1 < len(script) && len(msgs) < 64; i += 2 {
			// A want of int8 times 4: up to ±512, so that a few pass the
			// read-ahead of 1,024.
			m := &cosidv1.ReadRangesRequest{Want: int64(int8(script[i+1])) * 4}
			first := len(msgs) == 0
			switch script[i] % 4 {
			case 0: // well formed
				if first {
					m.Name, m.Size = "order", size
				}
			case 1: // no name, or a name where none belongs
				if !first {
					m.Name = "order"
				}
				m.Size = size
			case 2: // a size where none belongs, or none
				if first {
					m.Name = "order"
				} else {
					m.Size = size
				}
			case 3: // a size of 0, or the largest
				m.Name, m.Size = "order", MaxStreamRange+int64(script[i])%2
			}
			msgs = append(msgs, m)
		}
		// The messages the server read: recv runs on a goroutine of the call's,
		// which may read one more as the call ends.
		var mu sync.Mutex
		next := 0
		recv := func() (*cosidv1.ReadRangesRequest, error) {
			mu.Lock()
			defer mu.Unlock()
			if next == len(msgs) {
				return nil, io.EOF
			}
			next++
			return msgs[next-1], nil
		}
		var sent []*cosidv1.ReadRangesResponse
		err := ids.readRanges(t.Context(), recv, func(m *cosidv1.ReadRangesResponse) error {
			sent = append(sent, &cosidv1.ReadRangesResponse{Start: m.GetStart(), End: m.GetEnd()})
			return nil
		})
		mu.Lock()
		taken := msgs[:next]
		mu.Unlock()
		asked := int64(0)
		for _, m := range taken {
			asked += max(m.GetWant(), 0)
		}
		if int64(len(sent)) > asked {
			t.Fatalf("%d ranges sent, %d asked by the %d messages read", len(sent), asked, len(taken))
		}
		for i, r := range sent {
			if r.GetEnd()-r.GetStart() != taken[0].GetSize() || (i > 0 && r.GetStart() < sent[i-1].GetEnd()) {
				t.Fatalf("range %d: [%d, %d) after %v, want one of %d ids after the one before", i, r.GetStart(), r.GetEnd(), sent[max(i-1, 0)], taken[0].GetSize())
			}
		}
		var ae *apiError
		switch {
		case err == nil:
			if next != len(msgs) || int64(len(sent)) != asked {
				t.Fatalf("a clean end after %d of %d messages, %d ranges sent of %d asked", next, len(msgs), len(sent), asked)
			}
		case errors.As(err, &ae):
			if ae.status != http.StatusBadRequest {
				t.Fatalf("refused with %d: %v", ae.status, err)
			}
		case errors.Is(err, cosid.ErrUnknownGenerator) && taken[0].GetName() == "":
		default:
			t.Fatalf("ended with %v (%T), want nil or a 400", err, err)
		}
	})
}
