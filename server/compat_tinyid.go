package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// Didi tinyid's id API, as tinyid-server answers it (IdContronller, under its
// context path /tinyid): GET /tinyid/id/nextId?bizType=K&batchSize=N&token=T answers
// {"data":[ids],"code":200,"message":""}, and nextIdSimple the ids as text joined by
// commas. A refused token is tinyid's code 5, any other failure its code 6, both
// with status 200; nextIdSimple answers an empty text for either, as tinyid does.
// The token is the ids role's, which tinyid's clients send as the parameter token.

// tinyid's error codes (ErrorCode) and its cap on batchSize (batch.size.max).
const (
	tinyidTokenErr     = 5
	tinyidSysErr       = 6
	tinyidMaxBatchSize = MaxCount
)

// WithTinyid serves Didi tinyid's routes /tinyid/id/nextId and nextIdSimple: their
// bizType keys are the keys of template, a keyed segment generator. As in tinyid, a
// bizType that does not exist in the store is an error, not a new sequence: cosid
// migrate from-tinyid makes tinyid's, and an id of the key taken over /v1 makes a
// new one.
func WithTinyid(template string) Option { return func(s *Server) { s.tinyid = template } }

// tinyidAnswer is tinyid's Response: Jackson writes its fields in this order.
type tinyidAnswer struct {
	Data    []int64 `json:"data"`
	Code    int     `json:"code"`
	Message string  `json:"message"`
}

// tinyidTake takes the ids of a tinyid call: batchSize (absent: 1; above tinyid's
// cap: the cap; 0 or less: none, as tinyid's loop takes none) of the bizType key.
func (s *Server) tinyidTake(r *http.Request) ([]int64, error) {
	q := r.URL.Query()
	n := int64(1)
	if b := q.Get("batchSize"); b != "" {
		v, err := strconv.ParseInt(b, 10, 32)
		if err != nil {
			return nil, badRequest("Failed to convert value of type 'java.lang.String' to required type 'java.lang.Integer'; batchSize %q", b)
		}
		n = min(v, tinyidMaxBatchSize)
	}
	key := q.Get("bizType")
	if key == "" {
		return nil, errTinyidToken
	}
	src, err := s.knownKeySource(r.Context(), s.tinyid, key, &s.tinyidKeys)
	if err != nil {
		var le *errLeaf
		if errors.As(err, &le) && le.id == leafKeyNotExists {
			return nil, &tinyidError{"can not find biztype:" + key, nil}
		}
		return nil, &tinyidError{"sys error", err}
	}
	if n <= 0 {
		return []int64{}, nil
	}
	if err := s.charge(r, src, n); err != nil {
		return nil, err
	}
	ids := make([]int64, 0, n)
	if !s.gens[s.tinyid].info.Ranges {
		// A template of a stride (tinyid's delta and remainder): its ids one by one.
		for range n {
			v, err := src.NextInt(r.Context())
			if err != nil {
				return nil, &tinyidError{"sys error", err}
			}
			ids = append(ids, v)
		}
		return ids, nil
	}
	rg, err := src.NextRange(r.Context(), n)
	if err != nil {
		return nil, &tinyidError{"sys error", err}
	}
	for v := rg.Start; v < rg.End; v++ {
		ids = append(ids, v)
	}
	return ids, nil
}

// tinyidError is a failure that tinyid answers with code 6 and message.
type tinyidError struct {
	message string
	err     error // what the log gets
}

func (e *tinyidError) Error() string { return e.message }
func (e *tinyidError) Unwrap() error { return e.err }

// errTinyidToken is tinyid's refusal of a token (or of no bizType).
var errTinyidToken = errors.New("token is error")

// tinyidNext serves /tinyid/id/nextId.
func (s *Server) tinyidNext(w http.ResponseWriter, r *http.Request) error {
	ids, err := s.tinyidTake(r)
	if err != nil {
		return err
	}
	writeTinyid(w, tinyidAnswer{Data: ids, Code: http.StatusOK})
	return nil
}

// tinyidNextSimple serves /tinyid/id/nextIdSimple.
func (s *Server) tinyidNextSimple(w http.ResponseWriter, r *http.Request) error {
	ids, err := s.tinyidTake(r)
	if err != nil {
		return err
	}
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return writeText(w, b.String())
}

// failTinyid answers err as tinyid's nextId does: 200 with its code and message. A
// store's failure is logged, and its words stay in the log.
func (s *Server) failTinyid(simple bool) func(w http.ResponseWriter, r *http.Request, err error) {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		var (
			te *tinyidError
			ae *apiError
		)
		answer := tinyidAnswer{Code: tinyidSysErr, Message: "sys error"}
		var re *rateError
		switch {
		case errors.As(err, &re):
			// Not tinyid's: a client that reads only its 200s sees a failure, and
			// one that reads Retry-After waits.
			w.Header().Set("Retry-After", re.retryAfter())
			if simple {
				w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(re.msg))
				return
			}
			body, _ := json.Marshal(tinyidAnswer{Data: []int64{}, Code: http.StatusTooManyRequests, Message: re.msg})
			w.Header().Set("Content-Type", "application/json;charset=UTF-8")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(body)
			return
		case errors.Is(err, errTinyidToken):
			answer = tinyidAnswer{Code: tinyidTokenErr, Message: errTinyidToken.Error()}
		case errors.As(err, &ae):
			if !simple {
				s.fail(w, r, err) // Spring refuses a bad parameter itself: a 400
				return
			}
		case errors.As(err, &te):
			answer.Message = te.message
			if te.err != nil {
				s.logger.Warn("server: tinyid route failed", "path", r.URL.Path, "err", te.err)
			}
		default:
			s.logger.Warn("server: tinyid route failed", "path", r.URL.Path, "err", err)
		}
		if simple {
			writeText(w, "")
			return
		}
		writeTinyid(w, answer)
	}
}

func writeTinyid(w http.ResponseWriter, a tinyidAnswer) {
	body, _ := json.Marshal(a)
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.Write(body)
}
