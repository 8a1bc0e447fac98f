/*
 * The record protocol of @retry-safe/idempotency, for spin: one key; three clients (processes, each with its own
 * store object), the first with ATTEMPTS owner tokens (it retries), one with other parameters; replies lost on the
 * wire and resent; leases that run out and records that expire at any step. Every store call is one atomic
 * transition of the table (transitions.pml, generated from transitions.json, the table the stores' tests read).
 *
 *   spin -DSTORE_REDIS -a record.pml && gcc -O2 -DSAFETY -DNOCLAIM -o pan pan.c && ./pan -n         (safety)
 *   spin -DSTORE_REDIS -DATTEMPTS=1 -a record.pml && gcc -O2 -DNFAIR=3 -o pan pan.c && ./pan -n -a -f   (progress)
 * and the same with -DSTORE_POSTGRES; -DLOSSES=2 -DEXPIRIES=2 for larger bounds. test/unit/record-model.spec.ts
 * runs these and the broken variants (model/broken-variants.json); `pnpm test:model` with larger bounds.
 *
 * Properties: assertions (single winner in ON_COMPLETED, no stale write in ON_OWNER_WRITE, fencing in ON_GRANT,
 * resend safety in RUN; a waiter blocked for ever is an invalid end state) and the LTL formula `progress`.
 *
 * The two stores differ only where they make a token:
 *   STORE_REDIS     an expired record is gone; a new record's token is the Redis clock (in microseconds, one
 *                   grant per tick at most), and a claim may name this store's abandoned owner
 *   STORE_POSTGRES  an expired row stays (it counts as absent) until the sweep deletes it and raises the fence
 *                   floor past its token; a new token is max(row's, floor) + 1
 */
#if !defined(STORE_REDIS) && !defined(STORE_POSTGRES)
#define STORE_REDIS
#endif
#ifdef STORE_REDIS
#define FLAVOUR_REDIS 1
#define FLAVOUR_POSTGRES 0
#else
#define FLAVOUR_REDIS 0
#define FLAVOUR_POSTGRES 1
#endif

#ifndef CLIENTS
#define CLIENTS 3
#endif
#ifndef ATTEMPTS
#define ATTEMPTS 2 /* owner tokens of the first client: a retry after a failure, a timeout, a lost lease */
#endif
#ifndef LOSSES
#define LOSSES 1 /* replies lost on the wire (or calls lost before they ran), in all */
#endif
#ifndef EXPIRIES
#define EXPIRIES 1 /* record lifetimes that end: the key's generations after the first */
#endif
#define OWNERS (CLIENTS * ATTEMPTS)

#define MAX(a, b) ((a) > (b) -> (a) : (b))

/* The record. recAlive: an expired PostgreSQL row is still there (its token too) but counts as absent. */
byte recState, recOwner, recFp, recFence;
bool recLease, recPinned, recAlive;
#define LIVE_RECORD (recState != REC_ABSENT && recAlive)

byte clock;      /* Redis: TIME, in microseconds */
byte fenceFloor; /* PostgreSQL: <table>__fence, the highest token the sweep deleted */
byte newFence;   /* scratch of one transition */
byte losses = LOSSES, expiries = EXPIRIES;

byte abandoned[CLIENTS]; /* Redis: the owner of this store's timed-out claim, until it is given back */
bool done[CLIENTS];

/* Ghosts: what the properties need to remember. */
byte maxGranted;            /* fencing: the highest token granted so far */
byte winner;                /* single winner: the owner that completed this generation of the record */
bool takenOver[OWNERS + 1]; /* no stale write: owners whose reservation another claim took over */
bool untouched[CLIENTS];    /* resend safety: nothing changed the record since this client's call first ran */

/* How each rule of the table makes a token. */
#define FENCE_SAME(f) f = recFence
#ifdef STORE_REDIS
#define FENCE_NEXT(f) clock++; f = recFence + 1
#define FENCE_FRESH(f) clock++; f = clock
#define FENCE_UNOWNED(f) f = 0
#else
#define FENCE_NEXT(f) f = MAX(recFence, fenceFloor) + 1
#define FENCE_FRESH(f) f = (recState != REC_ABSENT -> MAX(recFence, fenceFloor) : fenceFloor) + 1
#define FENCE_UNOWNED(f) f = (recState != REC_ABSENT -> recFence : 0)
#endif
#define FENCE_RESTART(f) f = 1

/* fencing: every grant's token is above every token granted before it, across expiry. A grant is a new lease,
   also for an owner token that lost an earlier one (a resent claim that finds the key free again). */
#define ON_GRANT(o, f) assert(f > maxGranted); maxGranted = f; takenOver[o] = false

/* single winner: one owner at most completes a generation of the record. */
#define ON_COMPLETED(o) assert(winner == 0 || winner == o); winner = o

/* resend safety: whatever changes the record makes every call's first answer stale. */
#if CLIENTS == 3
#define TOUCH_ALL() untouched[0] = false; untouched[1] = false; untouched[2] = false
#else
#define TOUCH_ALL() untouched[0] = false; untouched[1] = false
#endif

/* A claim that writes: a pending record of another owner is being taken over. */
#define ON_CLAIM_WRITE(o) \
  if \
  :: LIVE_RECORD && recState == REC_PENDING && recOwner != o -> takenOver[recOwner] = true \
  :: else -> skip \
  fi; \
  TOUCH_ALL()

/* no stale write: complete, renew and release change only the record the caller still owns. */
#define ON_OWNER_WRITE(o) assert(LIVE_RECORD && recOwner == o && !takenOver[o]); TOUCH_ALL()

#include "transitions.pml"

#define NET_ARRIVED 1 /* the reply arrived */
#define NET_RESEND 2  /* the reply was lost: the client resends the call after it reconnects */
#define NET_GAVE_UP 3 /* the reply was lost and the caller was told "unavailable" */
#define NET_UNSENT 4  /* lost before it ran (dropped with the connection): the caller was told "unavailable" */
#define ANSWERED (net == NET_ARRIVED)

/*
 * A store call, and what the wire does with it. The call runs atomically; its reply arrives, or is lost and the
 * call is resent (it runs again, later), or is lost and the caller gives up; or the call is lost before it ever
 * ran. Each loss spends one of LOSSES. A resend that finds the record as the first run left it must answer as the
 * first run did: `first`/`firstFence` keep that answer while a resend is due.
 */
#define RUN(CALL, NET) \
  CALL; \
  if \
  :: net == NET_RESEND && untouched[c] -> assert(rep == first && repFence == firstFence) \
  :: else -> skip \
  fi; \
  net = NET; \
  if \
  :: net == NET_RESEND -> first = rep; firstFence = repFence; untouched[c] = true \
  :: else -> first = 0; firstFence = 0; untouched[c] = false \
  fi

#define SEND(CALL, AGAIN) \
AGAIN: \
  if \
  :: d_step { RUN(CALL, NET_ARRIVED) } \
  :: d_step { losses > 0 -> losses--; RUN(CALL, NET_RESEND) } \
  :: d_step { losses > 0 -> losses--; RUN(CALL, NET_GAVE_UP) } \
  :: d_step { net == 0 && losses > 0 -> losses--; net = NET_UNSENT; rep = 0; repFence = 0 } \
  fi; \
  if \
  :: net == NET_RESEND -> goto AGAIN \
  :: else \
  fi

#ifdef STORE_REDIS
/* The Redis store passes the owner of its timed-out claim of the key, until that claim is given back. */
#define CLAIM ab = abandoned[c]; claim_(o, fp, ab, rep, repFence); WATCHED
#define FORGET_ABANDONED(c, o) if :: o != 0 && abandoned[c] == o -> abandoned[c] = 0 :: else -> skip fi
#define ABANDON(c, o) abandoned[c] = o
#else
#define CLAIM claim_(o, fp, 0, rep, repFence); WATCHED
#define FORGET_ABANDONED(c, o) skip
#define ABANDON(c, o) skip
#endif
/* The owner whose live lease an "in progress" answer reported: the waiter sleeps until that changes. */
#define WATCHED seen = (rep == R_IN_PROGRESS -> recOwner : 0)

/* The give-back: an owner-checked release of the timed-out claim; its store then forgets it was abandoned. */
#define GIVE_BACK \
  atomic { \
    release_(givingBack, 0, 0, rep, repFence); \
    FORGET_ABANDONED(c, givingBack); \
    givingBack = 0; rep = 0; repFence = 0 \
  }

#define NEXT_OWNER 1 /* acquired: run the action */
#define NEXT_WAIT 2  /* in progress: wait, then claim again */
#define NEXT_RETRY 3 /* no answer: the caller may retry with a new owner token */
#define NEXT_DONE 4  /* replay or key reuse: the caller has its answer */

/*
 * A process calling the coordinator: claim (waiting while another owner holds the key), act, complete or release.
 * Wait mode claims again when the owner it waited for completes, releases, loses its lease or its record: a
 * claim in between would answer "in progress" again and change nothing.
 */
proctype Client(byte c; byte fp; byte attempts) {
  byte a = 0, o = 0, ab = 0, rep = 0, repFence = 0, first = 0, firstFence = 0, net = 0, seen = 0;
  byte next = 0, givingBack = 0; /* givingBack: the owner of a timed-out claim whose give-back has not run */
  do
  :: a < attempts ->
    d_step { o = c * ATTEMPTS + a + 1; a++ }
    /*
     * The store's give-back of a timed-out claim (a release once its late reply said acquired, or its promise
     * failed) runs at some point before this next claim, or after it: then it is a no-op, since the claim takes
     * an abandoned reservation over (and commands on one connection run in order: the late claim ran before).
     */
    if
    :: givingBack != 0 -> GIVE_BACK
    :: true
    fi;
again:
    SEND(CLAIM, sendClaim);
    atomic {
      if
      :: !ANSWERED ->
        /* Told "unavailable": its store gives the claim back, and remembers it until then. */
        ABANDON(c, o);
        givingBack = (net == NET_UNSENT || rep == R_ACQUIRED -> o : 0);
        next = NEXT_RETRY
      :: else ->
        FORGET_ABANDONED(c, ab);
        if
        :: rep == R_ACQUIRED -> next = NEXT_OWNER
        :: rep == R_IN_PROGRESS -> next = NEXT_WAIT
        :: else -> next = NEXT_DONE
        fi
      fi;
      ab = 0; rep = 0; repFence = 0; net = 0
    }
    if
    :: next == NEXT_WAIT ->
      atomic { !(LIVE_RECORD && recState == REC_PENDING && recOwner == seen && recLease) -> seen = 0; next = 0 };
      goto again
    :: next == NEXT_DONE -> break
    :: next == NEXT_RETRY -> next = 0
    :: next == NEXT_OWNER ->
      /* The owner: renews while acting, then completes (success), releases (failure) or crashes. */
      next = 0;
      if
      :: SEND(renew_(o, fp, 0, rep, repFence), sendRenew); atomic { rep = 0; repFence = 0; net = 0 }
      :: skip
      fi;
      if
      :: SEND(complete_(o, fp, 0, rep, repFence), sendComplete);
        if
        :: ANSWERED && rep == R_TRUE -> break /* executed */
        :: else -> skip /* lease lost, or no answer: the caller may retry */
        fi
      :: SEND(release_(o, fp, 0, rep, repFence), sendRelease)
      :: break /* crashed: its lease runs out */
      fi;
      atomic { rep = 0; repFence = 0; net = 0 }
    fi
  :: break
  od;
  if
  :: givingBack != 0 -> GIVE_BACK
  :: else
  fi;
  atomic { a = 0; o = 0; ab = 0; rep = 0; repFence = 0; net = 0; next = 0; done[c] = true }
}

/* Time: a lease runs out, a record expires (unless its lease is live), the PostgreSQL sweep deletes it. */
active proctype Time() {
#ifdef CLOCK_STEPS_BACK
  bool stepped = false;
#endif
end:
  do
  :: d_step { LIVE_RECORD && recState == REC_PENDING && recLease -> recLease = false }
  :: d_step {
      LIVE_RECORD && !(recLease && recPinned) && expiries > 0 ->
      expiries--;
      winner = 0;
      TOUCH_ALL();
#ifdef STORE_REDIS
      recState = REC_ABSENT; recOwner = 0; recFp = 0; recFence = 0; recLease = false; recPinned = false
#else
      recAlive = false; recLease = false
#endif
    }
#ifdef STORE_POSTGRES
  :: d_step {
      recState != REC_ABSENT && !recAlive ->
#ifndef SWEEP_FORGETS_TOKENS
      fenceFloor = MAX(fenceFloor, recFence);
#endif
      recState = REC_ABSENT; recOwner = 0; recFp = 0; recFence = 0; recPinned = false; recAlive = true
    }
#endif
#ifdef CLOCK_STEPS_BACK
  :: d_step { !stepped -> stepped = true; clock = 0 }
#endif
  od
}

#if CLIENTS == 3
#define ALL_DONE (done[0] && done[1] && done[2])
#else
#define ALL_DONE (done[0] && done[1])
#endif

/* progress: under weak fairness every client ends: no waiter waits forever, a free key is claimed again. */
ltl progress { <> ALL_DONE }

init {
  atomic {
    recAlive = true;
    run Client(0, 1, ATTEMPTS); /* retries with a new owner token: after a failure, a timeout, a lost lease */
    run Client(1, 1, 1);
#if CLIENTS == 3
    run Client(2, 2, 1); /* another request under the same key: key reuse */
#endif
  }
}
