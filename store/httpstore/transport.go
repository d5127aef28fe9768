package httpstore

import (
	"net/http"
	"sync/atomic"
)

// transportWrapper is the wrapper of SetTransportWrapper; nil: none.
var transportWrapper atomic.Pointer[func(http.RoundTripper) http.RoundTripper]

// SetTransportWrapper has every Store that New makes after it send its calls through
// wrap(t), where t is the transport it would use; nil stops that. It reaches the
// Stores that a configuration opens (type http), which take no Go options: cosid
// serve sets it when tracing is on, so that each call carries its W3C trace context
// (traceparent) to the server. wrap must return a RoundTripper that sends what it is
// given: the Store's checks of the answer come after it.
func SetTransportWrapper(wrap func(http.RoundTripper) http.RoundTripper) {
	if wrap == nil {
		transportWrapper.Store(nil)
		return
	}
	transportWrapper.Store(&wrap)
}

// wrapTransport returns t wrapped by the SetTransportWrapper's wrapper, or t when
// none is set. A nil t is http.DefaultTransport, as http.Client has it.
func wrapTransport(t http.RoundTripper) http.RoundTripper {
	wrap := transportWrapper.Load()
	if wrap == nil {
		return t
	}
	if t == nil {
		t = http.DefaultTransport
	}
	return (*wrap)(t)
}
