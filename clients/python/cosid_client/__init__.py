"""A client of cosid serve that hands out ids from ranges it leases, refilled ahead.

A Client takes a range of a generator's ids with one call (GET
/v1/generators/{name}/range?count=N), hands them out locally, one an int, and takes
the next range in a background thread before the current one runs out, as tinyid's
client does. With several URLs it fails over: a server that refuses the connection,
times out or answers 5xx is left for the next, and the call that failed is asked
again there (a range a failed call may have taken is only a gap, never a
duplicate). Python's standard library only.

    from cosid_client import Client

    ids = Client(["http://a:8686", "http://b:8686"], "order", token="...")
    order_id = ids.next()
    ids.close()
"""

import json
import threading
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["Client", "CosIdError"]

# The most ids one range may ask for: the server's cap on count.
MAX_SIZE = 10_000


class CosIdError(Exception):
    """An error of cosid serve or of reaching it.

    status is the HTTP status (0 when no server answered), code the error code of the
    answer ("unavailable", "not_found", ...) and url the server that gave it.
    """

    def __init__(self, message, status=0, code="", url=""):
        super().__init__(message)
        self.status = status
        self.code = code
        self.url = url


class _Retry(Exception):
    """A failure of one server that the next server may not have."""


class Client:
    """Hands out the ids of one generator (and key) from leased ranges.

    urls: the servers, one str or a list, tried in order and failed over.
    generator: a segment generator's name; key: a key of a keyed one.
    token: the bearer token of the ids role, if the servers have tokens.
    size: the ids of each range (1 to 10,000); refill_at: the share of a range left
    when the next one is taken ahead (0 < refill_at < 1).
    timeout: seconds a server has to answer before the next is asked.
    store_id: the identity of the store the servers must share, which every range
    answer names in its header Cosid-Store-Id; a range of a server that names
    another is refused, never handed out. Without it the client pins the first
    identity it sees, so one client never mixes two stores; set it when the URLs
    are several, so that a client restarted while only a wrong server answers
    refuses it too.

    Ids of one Client are unique, and unique across every client of the servers'
    store; they rise within a range, not across ranges of different servers.
    """

    def __init__(self, urls, generator, *, key="", token="", size=1000, refill_at=0.3, timeout=5.0, store_id=""):
        if isinstance(urls, str):
            urls = [urls]
        self._urls = [u.rstrip("/") for u in urls]
        if not self._urls or not all(u.startswith(("http://", "https://")) for u in self._urls):
            raise ValueError(f"urls {urls!r}: want one or more http:// or https:// URLs")
        if not generator:
            raise ValueError("generator is empty: want a segment generator's name")
        if not 1 <= size <= MAX_SIZE:
            raise ValueError(f"size {size}: want 1 to {MAX_SIZE}, the server's cap on a range")
        if not 0 < refill_at < 1:
            raise ValueError(f"refill_at {refill_at}: want a share above 0 and below 1")
        if timeout <= 0:
            raise ValueError(f"timeout {timeout}: want seconds above 0")
        query = {"count": str(size)}
        if key:
            query["key"] = key
        self._path = f"/v1/generators/{urllib.parse.quote(generator, safe='')}/range?{urllib.parse.urlencode(query)}"
        self._token = token
        self._size = size
        self._low = max(1, int(size * refill_at))
        self._timeout = timeout
        self._store_id = store_id  # pinned by the caller, or by the first range seen
        self._server = 0  # the server asked first: the last that answered
        self._cond = threading.Condition()
        self._next = 0
        self._end = 0  # the current range is [_next, _end)
        self._ahead = None  # the range taken ahead, (start, end)
        self._fetching = False
        self._error = None  # the failure of the last refill, raised once
        self._closed = False
        # Redirects are refused: the token must not follow one to another host.
        self._opener = urllib.request.build_opener(_NoRedirect)

    def next(self):
        """Returns the next id, an int; blocks only when no id is at hand."""
        with self._cond:
            while True:
                if self._closed:
                    raise CosIdError("cosid_client: the client is closed")
                if self._next < self._end:
                    v = self._next
                    self._next += 1
                    if self._end - self._next <= self._low and self._ahead is None:
                        self._refill()
                    return v
                if self._ahead is not None:
                    self._next, self._end = self._ahead
                    self._ahead = None
                    continue
                if self._error is not None:
                    err, self._error = self._error, None
                    raise err
                self._refill()
                self._cond.wait()

    def close(self):
        """Stops the client: later calls of next fail. The unused ids are a gap."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _refill(self):
        # Called with the lock held: one background take at a time.
        if self._fetching:
            return
        self._fetching = True
        self._error = None
        threading.Thread(target=self._take, name="cosid-refill", daemon=True).start()

    def _take(self):
        try:
            got, err = self._take_range(), None
        except CosIdError as e:
            got, err = None, e
        with self._cond:
            self._fetching = False
            if got is not None:
                self._ahead = got
            else:
                self._error = err
            self._cond.notify_all()

    def _take_range(self):
        """Takes a range from the first server that answers, starting at the last one."""
        failures = []
        n = len(self._urls)
        for i in range(n):
            at = (self._server + i) % n
            url = self._urls[at]
            try:
                answer, store_id = self._call(url, self._path)
                self._check_store(url, store_id)
                start, end = int(answer["start"]), int(answer["end"])
            except _Retry as e:
                failures.append(str(e))
                continue
            except (KeyError, TypeError, ValueError) as e:
                raise CosIdError(f"{url}: the range answer is not one: {e!r}", url=url) from None
            if not 0 <= start < end or end - start > self._size:
                raise CosIdError(f"{url}: range [{start}, {end}) for {self._size} ids: refused, not a range of this size", url=url)
            self._server = at
            return start, end
        raise CosIdError("cosid_client: no server answered: " + "; ".join(failures))

    def _check_store(self, url, got):
        """Refuses a range of a store other than the client's: the next server may have it."""
        if not self._store_id:
            self._store_id = got  # the first store seen is the client's from now on
            return
        if got != self._store_id:
            raise _Retry(
                f"{url}: refused: its store is {got or 'not named (a server without identities)'!r}, "
                f"not {self._store_id!r}, the store of this client's ranges; "
                "fix the server's configuration or the client's store_id")

    def _call(self, url, path):
        headers = {"Accept": "application/json"}
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        req = urllib.request.Request(url + path, headers=headers)
        try:
            with self._opener.open(req, timeout=self._timeout) as resp:
                return json.load(resp), resp.headers.get("Cosid-Store-Id", "")
        except urllib.error.HTTPError as e:
            code, message = _error_of(e)
            if e.code >= 500:
                raise _Retry(f"{url}: {e.code} {code}: {message}") from None
            raise CosIdError(f"{url}: {e.code} {code}: {message}", status=e.code, code=code, url=url) from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            # Refused, reset, timed out, or an answer cut short: another server may answer.
            raise _Retry(f"{url}: {getattr(e, 'reason', e)}") from None


def _error_of(e):
    """The code and message of an error answer: {"code": ..., "message": ...}."""
    try:
        body = json.load(e)
        return body.get("code", ""), body.get("message", "")
    except (ValueError, OSError, AttributeError):
        return "", e.reason


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise urllib.error.HTTPError(req.full_url, code, f"redirect to {newurl} refused", headers, fp)
