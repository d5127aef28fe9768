-- CosId tables for SQL Server 2019 and later.
-- Keys are varbinary: compared byte for byte, whatever the database's collation.
if object_id(N'{{.Range}}', N'U') is null
create table {{.Range}} (
    range_key   varbinary(255) not null primary key,
    next_value  bigint         not null,
    sealed      bit            not null default 0
);
if object_id(N'{{.Slot}}', N'U') is null
create table {{.Slot}} (
    namespace      varbinary(100) not null,
    slot           int            not null,
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
    index last_owner nonclustered (namespace, last_owner_key, slot)
);
if object_id(N'{{.Namespace}}', N'U') is null
create table {{.Namespace}} (
    namespace    varbinary(100) not null primary key,
    slot_limit   int            not null,
    tolerance_ms bigint         not null
);
