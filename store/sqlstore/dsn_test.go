package sqlstore

import (
	"testing"
	"time"
)

// TestMySQLDSN checks the lock waits Open adds to a MySQL DSN: the timeout rounded up
// to a whole second, each unless the DSN sets it, whatever else the DSN holds.
func TestMySQLDSN(t *testing.T) {
	tests := []struct {
		dsn     string
		timeout time.Duration
		want    string
	}{
		{"root@tcp(h:3306)/db", 2 * time.Second, "root@tcp(h:3306)/db?innodb_lock_wait_timeout=2&lock_wait_timeout=2"},
		{"root@tcp(h:3306)/db", 1500 * time.Millisecond, "root@tcp(h:3306)/db?innodb_lock_wait_timeout=2&lock_wait_timeout=2"},
		{"root@tcp(h:3306)/db", time.Millisecond, "root@tcp(h:3306)/db?innodb_lock_wait_timeout=1&lock_wait_timeout=1"},
		{"u@/db?parseTime=true", 3 * time.Second, "u@/db?parseTime=true&innodb_lock_wait_timeout=3&lock_wait_timeout=3"},
		{"u@/db?innodb_lock_wait_timeout=1", 3 * time.Second, "u@/db?innodb_lock_wait_timeout=1&lock_wait_timeout=3"},
		{"u@/db?lock_wait_timeout=5", 3 * time.Second, "u@/db?lock_wait_timeout=5&innodb_lock_wait_timeout=3"},
		{"u@/db?lock_wait_timeout=5&innodb_lock_wait_timeout=4", time.Second, "u@/db?lock_wait_timeout=5&innodb_lock_wait_timeout=4"},
		{"u:p?w=lock_wait_timeout@tcp(h)/db", time.Second, "u:p?w=lock_wait_timeout@tcp(h)/db?innodb_lock_wait_timeout=1&lock_wait_timeout=1"},
		{"u:p?w@tcp(h)/db?x=1", time.Second, "u:p?w@tcp(h)/db?x=1&innodb_lock_wait_timeout=1&lock_wait_timeout=1"},
	}
	for _, tc := range tests {
		if got := mysqlDSN(tc.dsn, tc.timeout); got != tc.want {
			t.Errorf("mysqlDSN(%q, %v) = %q, want %q", tc.dsn, tc.timeout, got, tc.want)
		}
	}
}
