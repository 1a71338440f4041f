// The syndication endpoint's tables. They reference `posts`, so they run after the post service's
// migrations (and after the post-source view and events of host migration 002). Never edit a migration once released: add a new one.
import type { Migration } from "../contract/database.ts";

const runs = `
CREATE TABLE syndication_runs (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('batch', 'single')),
  trigger text NOT NULL CHECK (trigger IN ('manual', 'batch', 'webhook', 'cli')),
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished', 'abandoned')),
  posts integer NOT NULL DEFAULT 0,
  syndicated integer NOT NULL DEFAULT 0,
  partial integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  holder text
);
CREATE INDEX syndication_runs_recent ON syndication_runs (started_at DESC, id DESC);
-- Finding runs left 'running' by a dead process without reading the whole history.
CREATE INDEX syndication_runs_running ON syndication_runs (id) WHERE status = 'running';
`;

// One row per (post, target): the truth about what was sent. A row is claimed ('sending') by an
// atomic update before its syndicator is called, which is what keeps every send single.
const targets = `
CREATE TABLE syndication_targets (
  post_id bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  target_uid text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'sending', 'syndicated', 'failed', 'unknown')),
  url text,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  permanent boolean NOT NULL DEFAULT false,
  idempotency_key text NOT NULL,
  next_attempt_at timestamptz,
  claimed_by text,
  claimed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (post_id, target_uid)
);
-- Stale claims (a process died mid-send) are looked for at the start of every run.
CREATE INDEX syndication_targets_sending ON syndication_targets (claimed_at) WHERE state = 'sending';
`;

const attempts = `
CREATE TABLE syndication_attempts (
  id bigserial PRIMARY KEY,
  post_id bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  target_uid text NOT NULL,
  run_id bigint REFERENCES syndication_runs (id) ON DELETE SET NULL,
  trigger text NOT NULL CHECK (trigger IN ('manual', 'batch', 'webhook', 'cli')),
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  outcome text NOT NULL CHECK (outcome IN ('sending', 'syndicated', 'failed', 'unknown')),
  url text,
  error text
);
CREATE INDEX syndication_attempts_post ON syndication_attempts (post_id, started_at DESC);
`;

// The batch lease: one row per lock name. Taken with INSERT … ON CONFLICT … WHERE expired, so that
// it is atomic on PGlite and across PostgreSQL instances alike, and a dead holder's lease lapses.
const lease = `
CREATE TABLE syndication_lease (
  name text PRIMARY KEY,
  holder text NOT NULL,
  run_id bigint,
  trigger text NOT NULL CHECK (trigger IN ('manual', 'batch', 'webhook', 'cli')),
  acquired_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
`;

// Whether a copy's URL reached the post. Rows that exist already did (or the user has since edited
// the post): their posts are left as they are.
const writtenBack = `
ALTER TABLE syndication_targets ADD COLUMN written_back boolean NOT NULL DEFAULT false;
UPDATE syndication_targets SET written_back = true WHERE state = 'syndicated';
`;

// A syndicator's note of progress (the archive's capture job), so a retry resumes the same work.
const checkpoint = `
ALTER TABLE syndication_targets ADD COLUMN checkpoint text;
`;

// The HTTP status of the last failure, so the page can say "rate limited until 14:05".
const lastStatus = `
ALTER TABLE syndication_targets ADD COLUMN last_status integer;
`;

// Deploy webhooks seen in the last day, by a hash of their delivery id, so that a captured signed
// webhook cannot be sent again (decision 0012). Old rows are deleted as new deliveries arrive.
const webhookDeliveries = `
CREATE TABLE webhook_deliveries (
  key text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_seen_at ON webhook_deliveries (seen_at);
`;

/** The trigger columns' checks, allowing `triggers`. They were created unnamed, so they carry
 * PostgreSQL's generated names (<table>_trigger_check). */
const triggerChecks = (triggers: readonly string[]) =>
  ["syndication_runs", "syndication_attempts", "syndication_lease"]
    .map(
      (table) => `
ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${table}_trigger_check;
ALTER TABLE ${table} ADD CONSTRAINT ${table}_trigger_check
  CHECK (trigger IN (${triggers.map((trigger) => `'${trigger}'`).join(", ")}));`,
    )
    .join("\n");

// Runs started by the scheduler (decision 0014) carry the trigger 'schedule'.
const scheduleTrigger = triggerChecks(["manual", "batch", "webhook", "cli", "schedule"]);

// Whether a post's URL answers yet (schedule.whenLive): a new post is sent automatically only once
// its page is live. One row per post, kept after it went live so the page is never asked again.
const liveChecks = `
CREATE TABLE syndication_live_checks (
  post_id bigint PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  url text NOT NULL,
  live_at timestamptz,
  first_checked_at timestamptz NOT NULL DEFAULT now(),
  checked_at timestamptz NOT NULL DEFAULT now(),
  next_check_at timestamptz,
  checks integer NOT NULL DEFAULT 0,
  last_status integer,
  last_error text,
  gave_up boolean NOT NULL DEFAULT false
);
-- The scheduler looks for the earliest due retry every time it wakes.
CREATE INDEX syndication_targets_due ON syndication_targets (next_attempt_at)
  WHERE state IN ('pending', 'failed');
`;

// What is known of each target as a whole (decision 0020): its last check or send, its last error, since
// when it refuses our credentials, until when it rate-limits us; shared by every instance. And the
// ledger state 'skipped': the user chose not to send a post to a target ("Skip for this post").
const targetHealth = `
CREATE TABLE syndication_target_health (
  target_uid text PRIMARY KEY,
  checked_at timestamptz,
  ok_at timestamptz,
  error text,
  error_status integer,
  error_at timestamptz,
  refused_since timestamptz,
  rate_limited_until timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE syndication_targets DROP CONSTRAINT IF EXISTS syndication_targets_state_check;
ALTER TABLE syndication_targets ADD CONSTRAINT syndication_targets_state_check
  CHECK (state IN ('pending', 'sending', 'syndicated', 'failed', 'unknown', 'skipped'));
`;

// The user's own words for one post on one target (decision 0026), sent instead of the text the target's
// template makes. Kept apart from the ledger row, which exists only once a send was claimed.
const ownTexts = `
CREATE TABLE syndication_texts (
  post_id bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  target_uid text NOT NULL,
  text text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (post_id, target_uid)
);
ALTER TABLE syndication_attempts ADD COLUMN own_text text;
`;

// Copies that follow their post (decision 0028): an update or a delete of a copy is an operation with the
// same state machine as a send, one row per (post, target, operation) kept beside the send's row.
// `digest` on the send's row is what its copy holds now; on an update, what the copy is to become.
// A trigger notes in syndication_post_changes each post that has copies (or was to be sent) and
// changed in anything but the links we write back, so that a change is followed even if the
// process that made it dies before it could say so; runs drain the table.
const followUps = `
ALTER TABLE syndication_targets ADD COLUMN digest text;
-- A follow-up row is a send's row (the same columns, defaults and state machine) with its operation.
CREATE TABLE syndication_operations (
  LIKE syndication_targets INCLUDING DEFAULTS,
  operation text NOT NULL CHECK (operation IN ('update', 'delete')),
  PRIMARY KEY (post_id, target_uid, operation),
  FOREIGN KEY (post_id) REFERENCES posts (id) ON DELETE CASCADE,
  CONSTRAINT syndication_operations_state_check
    CHECK (state IN ('pending', 'sending', 'done', 'failed', 'unknown', 'cancelled', 'kept'))
);
-- What only a send has: whether its link was written back, a capture's progress.
ALTER TABLE syndication_operations DROP COLUMN written_back, DROP COLUMN checkpoint;
CREATE INDEX syndication_operations_due ON syndication_operations (next_attempt_at)
  WHERE state IN ('pending', 'failed');
CREATE INDEX syndication_operations_sending ON syndication_operations (claimed_at) WHERE state = 'sending';
ALTER TABLE syndication_runs ADD COLUMN followed integer NOT NULL DEFAULT 0;
-- Posts a run left for later or for the user, as counted then; runs recorded before it derive it.
ALTER TABLE syndication_runs ADD COLUMN skipped integer;
ALTER TABLE syndication_attempts ADD COLUMN operation text NOT NULL DEFAULT 'create'
  CHECK (operation IN ('create', 'update', 'delete'));
CREATE TABLE syndication_post_changes (
  post_id bigint PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  noticed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE FUNCTION syndication_note_post_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A post with copies or sends, or a deleted post that was to be sent (its sends are cancelled).
  IF EXISTS (SELECT 1 FROM syndication_targets WHERE post_id = NEW.id)
     OR (NEW.deleted_at IS NOT NULL AND jsonb_typeof(NEW.properties->'mp-syndicate-to') = 'array'
         AND jsonb_array_length(NEW.properties->'mp-syndicate-to') > 0) THEN
    INSERT INTO syndication_post_changes (post_id) VALUES (NEW.id)
      ON CONFLICT (post_id) DO UPDATE SET noticed_at = clock_timestamp();
  END IF;
  RETURN NULL;
END
$$;
-- The user's own words for a copy changed on the page: what the copy would get changes too.
CREATE FUNCTION syndication_note_text_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed bigint := CASE TG_OP WHEN 'DELETE' THEN OLD.post_id ELSE NEW.post_id END;
BEGIN
  INSERT INTO syndication_post_changes (post_id)
    SELECT changed WHERE EXISTS (SELECT 1 FROM syndication_targets WHERE post_id = changed)
    ON CONFLICT (post_id) DO UPDATE SET noticed_at = clock_timestamp();
  RETURN NULL;
END
$$;
CREATE TRIGGER syndication_text_changed AFTER INSERT OR UPDATE OR DELETE ON syndication_texts
  FOR EACH ROW EXECUTE FUNCTION syndication_note_text_change();
-- The WHEN is evaluated without calling the function: a write-back of links costs two jsonb
-- subtractions and a comparison.
CREATE TRIGGER syndication_post_changed AFTER UPDATE ON posts FOR EACH ROW
  WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at
        OR (OLD.properties - '{syndication,mp-syndicate-to}'::text[])
           IS DISTINCT FROM (NEW.properties - '{syndication,mp-syndicate-to}'::text[]))
  EXECUTE FUNCTION syndication_note_post_change();
`;

// A copy's link counts as written back once the post holds it, whoever put it there. Marked in the
// post update's own transaction, a run's write-back costs no statement and no commit of its own.
const writtenBackTrigger = `
CREATE FUNCTION syndication_note_links_written_back() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- ? matches an element of an array or a lone string, as a post's syndication may be either.
  UPDATE syndication_targets SET written_back = true
   WHERE post_id = NEW.id AND state = 'syndicated' AND NOT written_back
     AND NEW.properties->'syndication' ? url;
  RETURN NULL;
END
$$;
CREATE TRIGGER syndication_links_written_back AFTER UPDATE ON posts FOR EACH ROW
  WHEN (OLD.properties->'syndication' IS DISTINCT FROM NEW.properties->'syndication')
  EXECUTE FUNCTION syndication_note_links_written_back();
`;

// A failing streak per (kind, target) that the user was told of (decision 0050: notifications): the first
// failure of a streak inserts the row and is the one message; later ones only count; the target's
// recovery deletes its rows and is the one "recovered" message. Shared by every instance.
const notificationStreaks = `
CREATE TABLE syndication_notification_streaks (
  kind text NOT NULL,
  target_uid text NOT NULL,
  failures integer NOT NULL DEFAULT 1,
  started_at timestamptz NOT NULL DEFAULT now(),
  last_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (target_uid, kind)
);
`;

// The core hears of a post's change through the post-source port's trigger functions (host migration
// 002) instead of triggers of its own on the host's table: it fills them in with what 008 and 014's
// functions did, and drops those triggers, so that its SQL names the source's relation only.
const postSourceEvents = `
DROP TRIGGER syndication_post_changed ON posts;
DROP TRIGGER syndication_links_written_back ON posts;
CREATE OR REPLACE FUNCTION post_source_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A post with copies or sends, or a deleted post that was to be sent (its sends are cancelled).
  IF EXISTS (SELECT 1 FROM syndication_targets WHERE post_id = NEW.id)
     OR (NEW.deleted_at IS NOT NULL
         AND jsonb_typeof(NEW.properties->'mp-syndicate-to') = 'array'
         AND jsonb_array_length(NEW.properties->'mp-syndicate-to') > 0) THEN
    INSERT INTO syndication_post_changes (post_id) VALUES (NEW.id)
      ON CONFLICT (post_id) DO UPDATE SET noticed_at = clock_timestamp();
  END IF;
  RETURN NULL;
END
$$;
CREATE OR REPLACE FUNCTION post_source_links_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A copy's link counts as written back once the post holds it, whoever put it there.
  -- ? matches an element of an array or a lone string, as a post's syndication may be either.
  UPDATE syndication_targets SET written_back = true
    WHERE post_id = NEW.id AND state = 'syndicated' AND NOT written_back
      AND NEW.properties->'syndication' ? url;
  RETURN NULL;
END
$$;
DROP FUNCTION syndication_note_post_change();
DROP FUNCTION syndication_note_links_written_back();
`;

// A retry of everything that needed attention is recorded as a retry, not as "Syndicate all" (decision 0021).
const retryTrigger = triggerChecks(["manual", "batch", "webhook", "cli", "schedule", "retry"]);

// What each attempt sent (decision 0054): text, photos with alt text, link choice (see sent-copy.ts).
const sentCopies = `
ALTER TABLE syndication_attempts ADD COLUMN sent jsonb;
`;

// Copies the user removed from their service while keeping the post ("Undo a copy", decision 0054):
// the target shows "removed by you" and is never sent the post again unless the user asks.
const removedCopies = `
CREATE TABLE syndication_removed_copies (
  post_id bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  target_uid text NOT NULL,
  url text NOT NULL,
  removed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (post_id, target_uid)
);
`;

// The user's choice for one post on one target (decision 0058): a long text as a thread, or cut and
// linked, whatever the target's `thread` option says. A change is noticed as an own text's is: a copy
// that is out follows it.
const threadChoices = `
CREATE TABLE syndication_thread_choices (
  post_id bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  target_uid text NOT NULL,
  thread boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (post_id, target_uid)
);
CREATE TRIGGER syndication_thread_choice_changed AFTER INSERT OR UPDATE OR DELETE ON syndication_thread_choices
  FOR EACH ROW EXECUTE FUNCTION syndication_note_text_change();
`;

// The posts of a copy sent as a thread (decision 0062): kept after the send, so that an edit or a
// deletion of the post reaches every post of the thread, not only the first. JSON read through
// src/contract/copy-thread.ts; NULL for a single post. An update the user asked to carry out by
// replacing the copy ("Replace the thread" on Bluesky, which has no edits) says so.
const copyThreads = `
ALTER TABLE syndication_targets ADD COLUMN thread jsonb;
ALTER TABLE syndication_operations ADD COLUMN replace boolean NOT NULL DEFAULT false;
`;

export const syndicationMigrations: Migration[] = [
  { id: "endpoint-syndicate/001-runs", sql: runs },
  { id: "endpoint-syndicate/002-targets", sql: targets },
  { id: "endpoint-syndicate/003-attempts", sql: attempts },
  { id: "endpoint-syndicate/004-lease", sql: lease },
  { id: "endpoint-syndicate/005-written-back", sql: writtenBack },
  { id: "endpoint-syndicate/006-checkpoint", sql: checkpoint },
  { id: "endpoint-syndicate/007-last-status", sql: lastStatus },
  { id: "endpoint-syndicate/008-schedule-trigger", sql: scheduleTrigger },
  { id: "endpoint-syndicate/009-live-checks", sql: liveChecks },
  { id: "endpoint-syndicate/010-webhook-deliveries", sql: webhookDeliveries },
  { id: "endpoint-syndicate/011-target-health", sql: targetHealth },
  { id: "endpoint-syndicate/012-own-texts", sql: ownTexts },
  { id: "endpoint-syndicate/013-follow-ups", sql: followUps },
  { id: "endpoint-syndicate/014-written-back-trigger", sql: writtenBackTrigger },
  { id: "endpoint-syndicate/015-notification-streaks", sql: notificationStreaks },
  { id: "endpoint-syndicate/016-post-source-events", sql: postSourceEvents },
  { id: "endpoint-syndicate/017-retry-trigger", sql: retryTrigger },
  { id: "endpoint-syndicate/018-sent-copies", sql: sentCopies },
  { id: "endpoint-syndicate/019-removed-copies", sql: removedCopies },
  { id: "endpoint-syndicate/020-copy-threads", sql: copyThreads },
  { id: "endpoint-syndicate/021-thread-choices", sql: threadChoices },
];
