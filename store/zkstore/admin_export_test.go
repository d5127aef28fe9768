package zkstore

// Unescape is the inverse of Escape, for the external tests.
var Unescape = unescape
