"""The tables of the store, in SQLAlchemy Core (portable between SQLite and PostgreSQL).

A change here needs its migration (bodoge/store/migrations/__init__.py says how):
tests/store/test_migrations.py compares the migrated schema with these tables.  The
comments "gain it when opened" below tell how stores made before migrations got each
column; :mod:`bodoge.store.migrations.legacy` does that now, once.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

players = sa.Table(
    "players",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    # Added after the first release (stores made before gain it when opened): when the player
    # last said hello, for the removal of idle guests (bodoge/server/services/housekeeping.py).
    sa.Column("seen_at", sa.BigInteger, nullable=True),
    # Accounts (bodoge/server/services/accounts.py), added after the first release too: a guest who
    # kept their name has an account name as typed, its key (NFKC, case folded: unique) and,
    # if they chose one, the argon2 hash of a password.  A guest has none of them.
    sa.Column("account_name", sa.Text, nullable=True),
    sa.Column("account_key", sa.Text, nullable=True),
    sa.Column("password_hash", sa.Text, nullable=True),
    # The generation of the account's sign-ins: "sign out everywhere" moves it on, and a
    # sign-in of an older generation no longer names anyone.
    sa.Column("generation", sa.Integer, nullable=True),
)

# An account's sign-ins, one per device (a browser signed in): only the SHA-256 of each
# token, like players.token_hash.  The token its guest began with becomes one when the guest
# keeps their name (revision 0003 moved those of older accounts).
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("player", sa.String(32), nullable=False, index=True),
    sa.Column("generation", sa.Integer, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    # Revision 0003: when the token was last used (written at most every
    # few minutes; NULL: not since created), from which client address, and the browser and
    # system its User-Agent named (bodoge/server/services/devices.py).  Unused too long, it
    # expires.
    sa.Column("seen_at", sa.BigInteger, nullable=True),
    sa.Column("address", sa.Text, nullable=True),
    sa.Column("browser", sa.Text, nullable=True),
    sa.Column("system", sa.Text, nullable=True),
)

# The client addresses an account signed in from (or was made at), and when last: the
# sign-in throttle's brake on an account never stops its owner at one of them
# (bodoge/server/services/accounts.py).  An IPv6 address is kept as its /64 network.
sign_in_addresses = sa.Table(
    "sign_in_addresses",
    metadata,
    sa.Column("player", sa.String(32), primary_key=True),
    sa.Column("address", sa.Text, primary_key=True),
    sa.Column("seen_at", sa.BigInteger, nullable=False),
)

# An account's passkeys (WebAuthn credentials): the public key, never a secret.
passkeys = sa.Table(
    "passkeys",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),  # the credential id, base64url
    sa.Column("player", sa.String(32), nullable=False, index=True),
    sa.Column("public_key", sa.LargeBinary, nullable=False),
    sa.Column("sign_count", sa.BigInteger, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("used_at", sa.BigInteger, nullable=True),
)

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("options", sa.JSON, nullable=False),
    sa.Column("settings", sa.JSON, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("host", sa.String(32), nullable=True),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("started_at", sa.BigInteger, nullable=True),
    sa.Column("finished_at", sa.BigInteger, nullable=True, index=True),
    sa.Column("result", sa.JSON, nullable=True),
    sa.Column("deadlines", sa.JSON, nullable=False),
    sa.Column("clock_deadline", sa.BigInteger, nullable=True),
    # Added after the first release: stores made before it gain the column when opened.
    sa.Column("unwatched_at", sa.BigInteger, nullable=True),
    # Cluster mode (bodoge/cluster/ownership.py): the process that runs the table, and the
    # fencing epoch of its claim. Added after the first release too: on PostgreSQL the
    # cluster's start-up gives an older store these columns with their default.
    sa.Column("owner", sa.Text, nullable=True),
    sa.Column("owner_epoch", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    # The rematch a player proposed once the game was over (a table id, not a foreign key:
    # a rematch everyone left is deleted and the link then names nothing).  Added later too.
    sa.Column("rematch", sa.String(32), nullable=True),
    # Added after the first release too: what each seat did in the finished game, the
    # counts of ``Game.statistics`` (a list, one object per seat) that profiles add up.
    # Written with the result; NULL for a table finished before it came, until the
    # server's start-up replays that game and fills it in (bodoge/server/services/statistics.py).
    sa.Column("statistics", sa.JSON, nullable=True),
)

# Cluster mode: one row per running process, its lease in the database's clock (ms).
cluster_processes = sa.Table(
    "cluster_processes",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("address", sa.Text, nullable=False),
    sa.Column("started_at", sa.BigInteger, nullable=False),
    sa.Column("expires_at", sa.BigInteger, nullable=False),
    # The tables the process held at its last renewal: where new tables go (cluster).
    sa.Column("tables", sa.Integer, nullable=True),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column(
        "table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("player", sa.String(32), nullable=True),
    sa.Column("level", sa.String(32), nullable=True),
    sa.Column("left_player", sa.String(32), nullable=True),
)

# Ratings per game (bodoge/server/services/ratings.py): one row per player
# (or ``bot:<level>``) and game.
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("player", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(64), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
    # mu - 3 sigma (OpenSkill's "ordinal", what a leaderboard ranks by), kept with every
    # rating so that a leaderboard reads an index instead of sorting every rating of a game.
    sa.Column("ordinal", sa.Float, nullable=True),
)

# A rating after each rated game: the key (table, player) is what makes a game count once.
rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("table_id", sa.String(32), primary_key=True),
    sa.Column("player", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("at", sa.BigInteger, nullable=False),
    sa.Index("rating_history_by_player", "player", "game", "at"),
)

# Rated tables whose game ended and whose ratings are not updated yet: written in the
# transaction that stores the result, deleted in the one that updates the ratings.
rating_pending = sa.Table(
    "rating_pending",
    metadata,
    sa.Column("table_id", sa.String(32), primary_key=True),
    sa.Column("at", sa.BigInteger, nullable=False),
)

# The players a waiting table's host removed: they may not sit at it again (after a restart,
# or on another process of a cluster, too).  Gone with the table.
removed_players = sa.Table(
    "removed_players",
    metadata,
    sa.Column(
        "table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("player", sa.String(32), primary_key=True),
)

# Passkey ceremonies begun and not finished (bodoge/server/services/accounts.py): in the store, so a
# ceremony begun on one process may finish on another.  Each is taken (deleted) once, by the
# request that finishes it; expired ones are swept as new ones come.
passkey_challenges = sa.Table(
    "passkey_challenges",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("challenge", sa.LargeBinary, nullable=False),
    sa.Column("purpose", sa.String(16), nullable=False),
    sa.Column("player", sa.String(32), nullable=True),
    sa.Column("name", sa.Text, nullable=True),
    sa.Column("rp_id", sa.Text, nullable=False),
    sa.Column("expires_at", sa.BigInteger, nullable=False, index=True),
)

# The primary key (table, n) is what makes "two moves can never both become move n" true.
moves = sa.Table(
    "moves",
    metadata,
    sa.Column(
        "table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("move", sa.JSON, nullable=False),
    sa.Column("at", sa.BigInteger, nullable=False),
    sa.Column("actor", sa.String(16), nullable=False),
    # The timers the move left running (turn deadlines per seat, the rule clock): a
    # catch-up sends each move's frame with its own, as it was sent live. NULL: a move
    # stored before revision 0005.
    sa.Column("deadlines", sa.JSON, nullable=True),
    sa.Column("clock_deadline", sa.BigInteger, nullable=True),
)

chat = sa.Table(
    "chat",
    metadata,
    sa.Column(
        "table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("line", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("player", sa.String(32), nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("at", sa.BigInteger, nullable=False),
)

# What makes a player more than a guest, looked up by player when idle guests are removed.
# (Stores made before them gain these indexes when opened.)
PLAYER_INDEXES = (
    sa.Index("seats_by_player", seats.c.player),
    sa.Index("seats_by_left_player", seats.c.left_player),
    sa.Index("tables_by_host", tables.c.host),
    sa.Index("chat_by_player", chat.c.player),
)

#: One account per key: two names that read the same after NFKC and case folding clash.
ACCOUNT_INDEX = sa.Index("players_by_account", players.c.account_key, unique=True)

# Sets of uploaded pictures, already checked and redrawn (bodoge/server/edge/pictures.py).  A set
# is written once, whole, and never changes.  (Stores made before these two tables kept the
# pictures in one table, deck_images; they are moved here when such a store is opened.)
picture_sets = sa.Table(
    "picture_sets",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    # Added after picture sets came (stores made before gain them when opened; their sets'
    # bytes are counted then): the player who uploaded the set, the bytes of its pictures,
    # and when a table last named it (bodoge/server/services/housekeeping.py deletes unused sets).
    sa.Column("owner", sa.String(32), nullable=True, index=True),
    sa.Column("bytes", sa.BigInteger, nullable=True),
    sa.Column("used_at", sa.BigInteger, nullable=True),
)

# Picture n of a set, from 0 to its size - 1.
pictures = sa.Table(
    "pictures",
    metadata,
    sa.Column(
        "set_id",
        sa.String(64),
        sa.ForeignKey("picture_sets.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("data", sa.LargeBinary, nullable=False),
    sa.Column("media_type", sa.String(32), nullable=False),
)

# Reads people wait on served by an index, so that their time does not grow with the number
# of games a store has kept (docs/performance.md, "The store over a year"); revision 0002.
#: The Finished tab and the statistics back-fill's newest-first walk: equality on the status
#: then the time, so no plan needs the database's statistics (SQLite has none until ANALYZE).
FINISHED_INDEX = sa.Index("tables_finished_by_time", tables.c.status, tables.c.finished_at)
#: Finished tables without statistics yet: the back-fill finds them without reading the others.
UNSUMMARISED_INDEX = sa.Index(
    "tables_unsummarised",
    tables.c.finished_at,
    tables.c.id,
    sqlite_where=sa.and_(tables.c.status == "finished", tables.c.statistics.is_(None)),
    postgresql_where=sa.and_(tables.c.status == "finished", tables.c.statistics.is_(None)),
)
#: A leaderboard: a game's ratings by the number shown (their ordinal), best first.
ORDINAL_INDEX = sa.Index("ratings_by_ordinal", ratings.c.game, ratings.c.ordinal, ratings.c.player)

# A player's vacation from turn-based games (bodoge/server/runtime/turns.py): until when it
# runs, and the days of the calendar year ``year`` (UTC) it has used.  One row per player who
# ever took one.
vacations = sa.Table(
    "vacations",
    metadata,
    sa.Column("player", sa.String(32), primary_key=True),
    sa.Column("until", sa.BigInteger, nullable=True),
    sa.Column("year", sa.Integer, nullable=False),
    sa.Column("days_used", sa.Integer, nullable=False),
)

# --- notifications (revision 0007): e-mail, Web Push, and what is waiting to be sent --------

# A person's notification choices (bodoge/server/services/notify.py): an account's e-mail
# address once its link was followed (``email_verified_at``), the language of what is sent,
# which kinds they want (1/0: portable between SQLite and PostgreSQL in plain SQL), and a
# daily digest instead of one e-mail each.  No row: the defaults (every kind, no e-mail).
notify_settings = sa.Table(
    "notify_settings",
    metadata,
    sa.Column("player", sa.String(32), primary_key=True),
    sa.Column("email", sa.Text, nullable=True),
    sa.Column("email_verified_at", sa.BigInteger, nullable=True),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("my_turn", sa.Integer, nullable=False),
    sa.Column("game_ended", sa.Integer, nullable=False),
    sa.Column("invited", sa.Integer, nullable=False),
    sa.Column("digest", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
)

# One browser's Web Push subscription (a device): where its push service takes messages and
# the keys they are encrypted to (RFC 8291).  A push service's 404 or 410 removes it.
push_subscriptions = sa.Table(
    "push_subscriptions",
    metadata,
    sa.Column("endpoint", sa.Text, primary_key=True),
    sa.Column("player", sa.String(32), nullable=False, index=True),
    sa.Column("p256dh", sa.Text, nullable=False),
    sa.Column("auth", sa.Text, nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)

# Secrets a server makes once and keeps (every process of a cluster reads the same): the
# VAPID key pair of Web Push, the key that signs e-mail links.
server_secrets = sa.Table(
    "server_secrets",
    metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)

# What is to be sent, and what was: one row per (kind, person, table, turn, channel), its
# ``key``, so a turn announced twice (a takeover, a restart) is sent once.  A process
# claims a row (``claimed_until``) before sending it, so two never send the same; a failure
# puts it back with a later ``due_at`` (back-off).  Sent rows stay a while as the memory of
# what was sent.
notify_outbox = sa.Table(
    "notify_outbox",
    metadata,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("player", sa.String(32), nullable=False),
    sa.Column("channel", sa.String(8), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("table_id", sa.String(32), nullable=True),
    sa.Column("payload", sa.Text, nullable=False),  # JSON text
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("due_at", sa.BigInteger, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("claimed_until", sa.BigInteger, nullable=True),
    sa.Column("claimed_by", sa.Text, nullable=True),
    sa.Column("sent_at", sa.BigInteger, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
)
#: The drain's question, "what is due and unsent", answered from an index.
OUTBOX_DUE_INDEX = sa.Index("notify_outbox_due", notify_outbox.c.sent_at, notify_outbox.c.due_at)

# Puzzles (revision 0008): short problems a game made from positions of bot games
# (bodoge/server/services/puzzles.py).  ``data`` is the game's, solution and explanation too; the
# server shows people only the game's public part of it.  Each puzzle is rated like a player
# (OpenSkill: a person who solves it wins against it), from the generator's difficulty on.
puzzles = sa.Table(
    "puzzles",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("data", sa.JSON, nullable=False),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("plays", sa.Integer, nullable=False),
    sa.Column("solved", sa.Integer, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Index("puzzles_by_rating", "game", "mu"),
)

# A person's puzzle rating per game, with their streak of puzzles solved in a row.
puzzle_players = sa.Table(
    "puzzle_players",
    metadata,
    sa.Column("player", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(64), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("solved", sa.Integer, nullable=False),
    sa.Column("streak", sa.Integer, nullable=False),
    sa.Column("best_streak", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
)

# Each person's one answer to a puzzle: the key (player, puzzle) is what makes a puzzle
# count once.  ``mu`` is the person's rating after it; ``day`` the day it was the daily
# puzzle, when answered as that.
puzzle_attempts = sa.Table(
    "puzzle_attempts",
    metadata,
    sa.Column("player", sa.String(32), primary_key=True),
    sa.Column("puzzle", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("answer", sa.JSON, nullable=False),
    sa.Column("correct", sa.Boolean, nullable=False),
    sa.Column("mu_before", sa.Float, nullable=False),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("day", sa.String(10), nullable=True),
    sa.Column("at", sa.BigInteger, nullable=False),
    sa.Index("puzzle_attempts_by_player", "player", "at"),
)

# The daily puzzle of each game and day (UTC), chosen once from the puzzles there were then
# and kept, so that it stays the same for everyone that day whatever is made later.
puzzle_days = sa.Table(
    "puzzle_days",
    metadata,
    sa.Column("game", sa.String(64), primary_key=True),
    sa.Column("day", sa.String(10), primary_key=True),
    sa.Column("puzzle", sa.String(32), nullable=False),
)
