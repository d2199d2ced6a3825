-- Facts about how the servers on this database are deployed, written by each server as it starts, for the
-- operator's commands that must act where the servers do: `usage_counters` is 'database', or 'redis <REDIS_URL
-- without its password>' when the monthly counters live in Redis (`admin quota reset` refuses to reset the other).
CREATE TABLE deployment (
  name       TEXT   PRIMARY KEY,
  value      TEXT   NOT NULL,
  updated_at BIGINT NOT NULL
);
