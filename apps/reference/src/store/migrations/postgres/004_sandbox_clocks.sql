-- The sandbox's test clock of each account's test data (src/sandbox/clock.ts; spec/sandbox/openapi.yaml): a row
-- only while the clock is off real time. A running clock keeps its offset from real time; a frozen one the instant
-- it stands at. Read on every request of the account's test data, so every instance on the database sees a change
-- at once.
CREATE TABLE sandbox_clocks (
  account_id   TEXT   PRIMARY KEY,
  offset_ms    BIGINT NOT NULL,
  frozen_at_ms BIGINT
);
