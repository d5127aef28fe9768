package server

import (
	"errors"
	"fmt"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// strictJSON is connect-go's JSON codec, but refusing a field that the message does
// not have, as /v1 does: connect-go's own discards it, so {"name":"order","cnt":5}
// would serve one id, and {"NAME":"order"} a generator without a name.
type strictJSON struct{ name string }

// strictJSONCodecs are the handler options of every Connect service: strictJSON
// under both names of connect-go's JSON codec.
func strictJSONCodecs() []connect.HandlerOption {
	return []connect.HandlerOption{
		connect.WithCodec(strictJSON{name: "json"}),
		connect.WithCodec(strictJSON{name: "json; charset=utf-8"}),
	}
}

func (c strictJSON) Name() string { return c.name }

func (strictJSON) Marshal(message any) ([]byte, error) {
	m, ok := message.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("%T is not a proto.Message", message)
	}
	return protojson.Marshal(m)
}

func (strictJSON) Unmarshal(data []byte, message any) error {
	m, ok := message.(proto.Message)
	if !ok {
		return fmt.Errorf("%T is not a proto.Message", message)
	}
	if len(data) == 0 {
		return errors.New("zero-length payload is not a valid JSON object")
	}
	return protojson.UnmarshalOptions{DiscardUnknown: false}.Unmarshal(data, m)
}
