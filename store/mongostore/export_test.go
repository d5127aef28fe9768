package mongostore

// Ms returns the offset in milliseconds.
func (c *ClockOffset) Ms() int64 { return c.ms.Load() }
