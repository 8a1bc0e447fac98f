/* Generated from model/transitions.json by model/transitions.ts: do not edit, run `node model/transitions.ts`. */

#define REC_ABSENT 0
#define REC_PENDING 1
#define REC_COMPLETED 2
#define REC_COMPLETED_WITHOUT_RESULT 3
#define REC_RELEASED 4

#define R_ACQUIRED 1
#define R_REPLAY 2
#define R_REPLAY_WITHOUT_RESULT 3
#define R_IN_PROGRESS 4
#define R_MISMATCH_PENDING 5
#define R_MISMATCH_COMPLETED 6
#define R_TRUE 7
#define R_FALSE 8

/* claim: absent, pending-own, completed-other-fingerprint, completed, completed-without-result-other-fingerprint, completed-without-result, pending-abandoned, pending-live-other-fingerprint, pending-live, pending-lease-over, released */
inline claim_(o, fp, ab, rep, repFence) {
  if
  :: (!LIVE_RECORD) ->
    /* claim/absent */ rep = R_ACQUIRED;
    FENCE_FRESH(newFence);
    repFence = newFence;
    ON_GRANT(o, newFence);
    ON_CLAIM_WRITE(o);
    recState = REC_PENDING;
    recOwner = o;
    recFp = fp;
    recFence = newFence;
    recAlive = true;
    recLease = true;
    recPinned = true;
  :: else ->
    if
    :: ((LIVE_RECORD && recState == REC_PENDING) && recOwner == o) ->
      /* claim/pending-own */ rep = R_ACQUIRED;
      FENCE_SAME(newFence);
      repFence = newFence;
    :: else ->
      if
      :: ((LIVE_RECORD && recState == REC_COMPLETED) && recFp != fp) ->
        /* claim/completed-other-fingerprint */ rep = R_MISMATCH_COMPLETED;
        FENCE_SAME(newFence);
        repFence = 0;
      :: else ->
        if
        :: ((LIVE_RECORD && recState == REC_COMPLETED)) ->
          /* claim/completed */ rep = R_REPLAY;
          FENCE_SAME(newFence);
          repFence = newFence;
        :: else ->
          if
          :: ((LIVE_RECORD && recState == REC_COMPLETED_WITHOUT_RESULT) && recFp != fp) ->
            /* claim/completed-without-result-other-fingerprint */ rep = R_MISMATCH_COMPLETED;
            FENCE_SAME(newFence);
            repFence = 0;
          :: else ->
            if
            :: ((LIVE_RECORD && recState == REC_COMPLETED_WITHOUT_RESULT)) ->
              /* claim/completed-without-result */ rep = R_REPLAY_WITHOUT_RESULT;
              FENCE_SAME(newFence);
              repFence = newFence;
            :: else ->
              if
              :: ((FLAVOUR_REDIS) && (LIVE_RECORD && recState == REC_PENDING) && (ab != 0 && recOwner == ab)) ->
                /* claim/pending-abandoned */ rep = R_ACQUIRED;
                FENCE_NEXT(newFence);
                repFence = newFence;
                ON_GRANT(o, newFence);
                ON_CLAIM_WRITE(o);
                recState = REC_PENDING;
                recOwner = o;
                recFp = fp;
                recFence = newFence;
                recAlive = true;
                recLease = true;
                recPinned = true;
              :: else ->
                if
                :: ((LIVE_RECORD && recState == REC_PENDING) && recLease && recFp != fp) ->
                  /* claim/pending-live-other-fingerprint */ rep = R_MISMATCH_PENDING;
                  FENCE_SAME(newFence);
                  repFence = 0;
                :: else ->
                  if
                  :: ((LIVE_RECORD && recState == REC_PENDING) && recLease) ->
                    /* claim/pending-live */ rep = R_IN_PROGRESS;
                    FENCE_SAME(newFence);
                    repFence = 0;
                  :: else ->
                    if
                    :: ((LIVE_RECORD && recState == REC_PENDING) && !recLease) ->
                      /* claim/pending-lease-over */ rep = R_ACQUIRED;
                      FENCE_NEXT(newFence);
                      repFence = newFence;
                      ON_GRANT(o, newFence);
                      ON_CLAIM_WRITE(o);
                      recState = REC_PENDING;
                      recOwner = o;
                      recFp = fp;
                      recFence = newFence;
                      recAlive = true;
                      recLease = true;
                      recPinned = true;
                    :: else ->
                        /* claim/released */ rep = R_ACQUIRED;
                        FENCE_NEXT(newFence);
                        repFence = newFence;
                        ON_GRANT(o, newFence);
                        ON_CLAIM_WRITE(o);
                        recState = REC_PENDING;
                        recOwner = o;
                        recFp = fp;
                        recFence = newFence;
                        recAlive = true;
                        recLease = true;
                        recPinned = true;
                    fi
                  fi
                fi
              fi
            fi
          fi
        fi
      fi
    fi
  fi;
  newFence = 0
}

/* complete: pending-own, completed-own, otherwise */
inline complete_(o, fp, ab, rep, repFence) {
  if
  :: ((LIVE_RECORD && recState == REC_PENDING) && recOwner == o) ->
    /* complete/pending-own */ rep = R_TRUE;
    FENCE_SAME(newFence);
    repFence = 0;
    ON_COMPLETED(o);
    ON_OWNER_WRITE(o);
    recState = REC_COMPLETED;
    recFence = newFence;
    recAlive = true;
    recLease = false;
    recPinned = false;
  :: else ->
    if
    :: ((LIVE_RECORD && recState == REC_COMPLETED) && recOwner == o) ->
      /* complete/completed-own */ rep = R_TRUE;
      FENCE_SAME(newFence);
      repFence = 0;
      ON_COMPLETED(o);
    :: else ->
        /* complete/otherwise */ rep = R_FALSE;
        FENCE_SAME(newFence);
        repFence = 0;
    fi
  fi;
  newFence = 0
}

/* completeWithoutResult: pending-own, completed-own, otherwise */
inline completeWithoutResult_(o, fp, ab, rep, repFence) {
  if
  :: ((LIVE_RECORD && recState == REC_PENDING) && recOwner == o) ->
    /* completeWithoutResult/pending-own */ rep = R_TRUE;
    FENCE_SAME(newFence);
    repFence = 0;
    ON_COMPLETED(o);
    ON_OWNER_WRITE(o);
    recState = REC_COMPLETED_WITHOUT_RESULT;
    recFence = newFence;
    recAlive = true;
    recLease = false;
    recPinned = false;
  :: else ->
    if
    :: ((LIVE_RECORD && recState == REC_COMPLETED_WITHOUT_RESULT) && recOwner == o) ->
      /* completeWithoutResult/completed-own */ rep = R_TRUE;
      FENCE_SAME(newFence);
      repFence = 0;
      ON_COMPLETED(o);
    :: else ->
        /* completeWithoutResult/otherwise */ rep = R_FALSE;
        FENCE_SAME(newFence);
        repFence = 0;
    fi
  fi;
  newFence = 0
}

/* renew: pending-own, otherwise */
inline renew_(o, fp, ab, rep, repFence) {
  if
  :: ((LIVE_RECORD && recState == REC_PENDING) && recOwner == o) ->
    /* renew/pending-own */ rep = R_TRUE;
    FENCE_SAME(newFence);
    repFence = 0;
    ON_OWNER_WRITE(o);
    recFence = newFence;
    recAlive = true;
    recLease = true;
    recPinned = true;
  :: else ->
      /* renew/otherwise */ rep = R_FALSE;
      FENCE_SAME(newFence);
      repFence = 0;
  fi;
  newFence = 0
}

/* release: pending-own, released-own, otherwise */
inline release_(o, fp, ab, rep, repFence) {
  if
  :: ((LIVE_RECORD && recState == REC_PENDING) && recOwner == o) ->
    /* release/pending-own */ rep = R_TRUE;
    FENCE_SAME(newFence);
    repFence = 0;
    ON_OWNER_WRITE(o);
    recState = REC_RELEASED;
    recFence = newFence;
    recAlive = true;
    recLease = false;
  :: else ->
    if
    :: ((LIVE_RECORD && recState == REC_RELEASED) && recOwner == o) ->
      /* release/released-own */ rep = R_TRUE;
      FENCE_SAME(newFence);
      repFence = 0;
    :: else ->
        /* release/otherwise */ rep = R_FALSE;
        FENCE_SAME(newFence);
        repFence = 0;
    fi
  fi;
  newFence = 0
}

/* storeIfAbsent: absent, otherwise */
inline storeIfAbsent_(o, fp, ab, rep, repFence) {
  if
  :: (!LIVE_RECORD) ->
    /* storeIfAbsent/absent */ rep = R_TRUE;
    FENCE_UNOWNED(newFence);
    repFence = 0;
    ON_OWNER_WRITE(o);
    recState = REC_COMPLETED;
    recOwner = 0;
    recFp = fp;
    recFence = newFence;
    recAlive = true;
    recLease = false;
    recPinned = false;
  :: else ->
      /* storeIfAbsent/otherwise */ rep = R_FALSE;
      FENCE_SAME(newFence);
      repFence = 0;
  fi;
  newFence = 0
}
