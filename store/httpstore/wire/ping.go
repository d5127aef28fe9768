package wire

// PathPing is the route of httpstore's Ping: GET, no body, answered {} once the
// served store answered its own Ping. It needs the store role's token like the
// other /v1/store routes, and writes nothing.
const PathPing = "/v1/store/ping"
