-- CosId tables for MySQL 8.4 and MariaDB 10.11 and later.
-- Keys are varbinary: compared byte for byte, so that keys differing only in case or
-- in trailing spaces, which a _ci or PAD SPACE collation would take as equal, stay two keys.
create table if not exists {{.Range}} (
    range_key   varbinary(255) not null primary key,
    next_value  bigint         not null,
    sealed      boolean        not null default false
);
create table if not exists {{.Slot}} (
    namespace      varbinary(100) not null,
    slot           integer        not null,
    owner_key      varbinary(255),
    incarnation    char(36),
    last_owner_key varbinary(255),
    fence          bigint         not null default 0,
    expires_at     bigint         not null default 0,
    floor_ms       bigint         not null default 0,
    ceiling_ms     bigint         not null default 0,
    next_floor_ms  bigint         not null default 0,
    primary key (namespace, slot),
    -- Acquire looks up the free slots an owner key had before (L5) in this index,
    -- and takes them in slot order.
    key last_owner (namespace, last_owner_key, slot)
);
create table if not exists {{.Namespace}} (
    namespace    varbinary(100) not null primary key,
    slot_limit   integer        not null,
    tolerance_ms bigint         not null
);
