package mongostore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/mongostore"
)

// spec returns the Spec of a store entry whose settings are text, decoded as the
// root package decodes them.
func spec(text string) store.Spec { return testenv.Spec("ids", text, discard()) }

// TestConfig_OpensMongoStore opens a store of type mongodb from its settings and
// reserves through it.
func TestConfig_OpensMongoStore(t *testing.T) {
	uri := server(t)
	db := testDatabase(t, uri)
	testenv.Opened(t, "mongodb", "ids", "uri: "+uri+"\ndatabase: "+db+"\ntimeout: 3s\noptions: { allowFerretDB: true }", 3*time.Second)
}

// TestConfig_ErrorsNameTheField checks that every bad entry fails before any I/O
// with an error wrapping ErrInvalidArgument that names its path, the field and what
// it allows, and never repeats the URI's password.
func TestConfig_ErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name, yaml string
		mention    []string
	}{
		{"UnknownKey", "uri: mongodb://h/\ndatabase: d\ntimout: 2s", []string{"cosid.stores.ids", "timout"}},
		{"NoURI", "database: d", []string{"cosid.stores.ids.uri", "missing", "mongodb://"}},
		{"BadURI", "uri: http://u:hunter2@h/\ndatabase: d", []string{"cosid.stores.ids.uri", "connection string"}},
		{"NoDatabase", "uri: mongodb://h/", []string{"cosid.stores.ids.database", "missing", "cosid_range"}},
		{"BadDatabase", "uri: mongodb://h/\ndatabase: a.b", []string{"cosid.stores.ids.database", `"a.b"`}},
		{"NegativeTimeout", "uri: mongodb://h/\ndatabase: d\ntimeout: -1s", []string{"cosid.stores.ids.timeout", "-1s", "positive"}},
		{"W1", "uri: mongodb://u:hunter2@h/?w=1\ndatabase: d", []string{"cosid.stores.ids.uri", "w=1", "weakWriteConcern"}},
		{"W0EvenWhenWeakAllowed", "uri: mongodb://h/?w=0\ndatabase: d\noptions: { weakWriteConcern: true }", []string{"cosid.stores.ids", "acknowledge"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := testenv.Refused(t, "mongodb", "ids", tt.yaml, tt.mention...)
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q repeats the password of the URI", err)
			}
		})
	}
}

// TestWriteConcern_MajorityUnlessOptedIn checks that a URI asking for w=1 opens
// only with the explicit opt-in, and that New refuses an unacknowledged write
// concern even then.
func TestWriteConcern_MajorityUnlessOptedIn(t *testing.T) {
	typ, _ := store.Lookup("mongodb")
	open := typ.Open
	st, err := open(context.Background(), spec("uri: mongodb://127.0.0.1:1/?w=1\ndatabase: d\noptions: { weakWriteConcern: true }"))
	if err != nil {
		t.Fatalf("w=1 with weakWriteConcern: %v", err)
	}
	st.Close()
	if _, err := open(context.Background(), spec("uri: mongodb://127.0.0.1:1/?w=1\ndatabase: d")); !errors.Is(err, mongostore.ErrWeakWriteConcern) {
		t.Errorf("w=1 without the opt-in: %v, want ErrWeakWriteConcern", err)
	}
	if _, err := open(context.Background(), spec("uri: mongodb://127.0.0.1:1/?w=majority\ndatabase: d")); err != nil {
		t.Errorf("w=majority: %v", err)
	}
}
