;; AdaQuant's step on the weight grid in WebAssembly SIMD, two float64 weights at a time (adaquantKernel.ts explains the
;; layout and holds the plain TypeScript stepOnGrid this must agree with bit for bit). Built into
;; adaquantKernelWasm.ts by scripts/build-kernels.ts; edit this text, never the bytes.
;;
;; Every array is float64 but `sat` (int64: all ones where the weight saturated) and `changed` (int32), laid out as
;; outChannels x k (each channel's inPerGroup weights, then its bias change); the caller passes byte offsets into this
;; module's memory. Each f64x2 operation rounds as JavaScript's float64 operation does (IEEE 754, no fused
;; multiply-add), and every expression below is the plain loop's, operand for operand and in its order, so every
;; value is the plain loop's bit for bit. A channel's odd last weight is taken as a pair with its bias entry, whose
;; lane is computed and put back as it was (`lanes`).
(module
  (memory (export "memory") 1)

  (func (export "step")
      (param $w i32) (param $wq i32) (param $sat i32) (param $cur i32) (param $gv i32) (param $cross i32)
      (param $changed i32) (param $low i32) (param $high i32) (param $m i32) (param $v i32)
      (param $scale i32) (param $zp i32)
      (param $channels i32) (param $inPerGroup i32) (param $k i32)
      (param $qmin f64) (param $qmax f64) (param $updateBias i32) (param $adam i32)
      (param $b1 f64) (param $omb1 f64) (param $b2 f64) (param $omb2 f64) (param $lr f64) (param $c1 f64)
      (param $c2 f64) (param $eps f64) (param $magic f64) (param $margin f64)
      (result i32)
    (local $count i32) (local $ch i32) (local $at i32) (local $end i32) (local $o i32) (local $bits i32)
    (local $laneBits i32) (local $interval i32)
    (local $s f64) (local $z f64) (local $below f64) (local $above f64)
    (local $bw f64) (local $bg f64) (local $bm f64) (local $bv f64) (local $next f64) (local $bc f64)
    (local $S v128) (local $Z v128) (local $BELOW v128) (local $ABOVE v128) (local $QMIN v128) (local $QMAX v128)
    (local $B1 v128) (local $OMB1 v128) (local $B2 v128) (local $OMB2 v128) (local $LR v128) (local $C1 v128)
    (local $C2 v128) (local $EPS v128) (local $MAGIC v128) (local $MARGIN v128) (local $HALF v128) (local $TWO v128)
    (local $NEGINF v128) (local $POSINF v128) (local $lanes v128)
    (local $wv v128) (local $wOld v128) (local $g v128) (local $mOld v128) (local $mm v128) (local $vOld v128)
    (local $vv v128) (local $lowv v128) (local $highv v128) (local $outside v128) (local $x v128) (local $c v128)
    (local $r v128) (local $q v128) (local $satv v128) (local $wqv v128) (local $curv v128)
    (local.set $QMIN (f64x2.splat (local.get $qmin)))
    (local.set $QMAX (f64x2.splat (local.get $qmax)))
    (local.set $B1 (f64x2.splat (local.get $b1)))
    (local.set $OMB1 (f64x2.splat (local.get $omb1)))
    (local.set $B2 (f64x2.splat (local.get $b2)))
    (local.set $OMB2 (f64x2.splat (local.get $omb2)))
    (local.set $LR (f64x2.splat (local.get $lr)))
    (local.set $C1 (f64x2.splat (local.get $c1)))
    (local.set $C2 (f64x2.splat (local.get $c2)))
    (local.set $EPS (f64x2.splat (local.get $eps)))
    (local.set $MAGIC (f64x2.splat (local.get $magic)))
    (local.set $MARGIN (f64x2.splat (local.get $margin)))
    (local.set $HALF (f64x2.splat (f64.const 0.5)))
    (local.set $TWO (f64x2.splat (f64.const 2)))
    (local.set $NEGINF (f64x2.splat (f64.const -inf)))
    (local.set $POSINF (f64x2.splat (f64.const inf)))
    (block $channelsDone (loop $channel
      (br_if $channelsDone (i32.ge_u (local.get $ch) (local.get $channels)))
      (local.set $s (f64.load (i32.add (local.get $scale) (i32.shl (local.get $ch) (i32.const 3)))))
      (local.set $z (f64.load (i32.add (local.get $zp) (i32.shl (local.get $ch) (i32.const 3)))))
      ;; below = qmin - z - 1, above = qmax - z + 1 (left to right, as the plain loop)
      (local.set $below (f64.sub (f64.sub (local.get $qmin) (local.get $z)) (f64.const 1)))
      (local.set $above (f64.add (f64.sub (local.get $qmax) (local.get $z)) (f64.const 1)))
      (local.set $interval (i32.and (f64.gt (local.get $s) (f64.const 0)) (f64.lt (local.get $s) (f64.const inf))))
      (local.set $S (f64x2.splat (local.get $s)))
      (local.set $Z (f64x2.splat (local.get $z)))
      (local.set $BELOW (f64x2.splat (local.get $below)))
      (local.set $ABOVE (f64x2.splat (local.get $above)))
      (local.set $at (i32.mul (local.get $ch) (local.get $k)))
      (local.set $end (i32.add (local.get $at) (local.get $inPerGroup)))
      (block $weightsDone (loop $pair
        (br_if $weightsDone (i32.ge_u (local.get $at) (local.get $end)))
        ;; both lanes, or the first only where the channel's last weight is alone
        (if (i32.lt_u (i32.add (local.get $at) (i32.const 1)) (local.get $end))
          (then
            (local.set $lanes (v128.const i64x2 -1 -1))
            (local.set $laneBits (i32.const 3)))
          (else
            (local.set $lanes (v128.const i64x2 -1 0))
            (local.set $laneBits (i32.const 1))))
        (local.set $o (i32.shl (local.get $at) (i32.const 3)))
        (local.set $wOld (v128.load align=8 (i32.add (local.get $w) (local.get $o))))
        (local.set $satv (v128.load align=8 (i32.add (local.get $sat) (local.get $o))))
        (local.set $wv (local.get $wOld))
        (if (local.get $adam) (then
          ;; g = saturated ? 0 : 2 * (gv - cross)
          (local.set $g (v128.andnot
            (f64x2.mul (local.get $TWO) (f64x2.sub
              (v128.load align=8 (i32.add (local.get $gv) (local.get $o)))
              (v128.load align=8 (i32.add (local.get $cross) (local.get $o)))))
            (local.get $satv)))
          ;; m = b1 * m + (1 - b1) * g; v = b2 * v + (1 - b2) * g * g; w = w - (lr * (m / c1)) / (sqrt(v / c2) + eps)
          (local.set $mOld (v128.load align=8 (i32.add (local.get $m) (local.get $o))))
          (local.set $vOld (v128.load align=8 (i32.add (local.get $v) (local.get $o))))
          (local.set $mm (f64x2.add (f64x2.mul (local.get $B1) (local.get $mOld)) (f64x2.mul (local.get $OMB1) (local.get $g))))
          (local.set $vv (f64x2.add (f64x2.mul (local.get $B2) (local.get $vOld))
            (f64x2.mul (f64x2.mul (local.get $OMB2) (local.get $g)) (local.get $g))))
          (local.set $wv (f64x2.sub (local.get $wOld)
            (f64x2.div
              (f64x2.mul (local.get $LR) (f64x2.div (local.get $mm) (local.get $C1)))
              (f64x2.add (f64x2.sqrt (f64x2.div (local.get $vv) (local.get $C2))) (local.get $EPS)))))
          (local.set $wv (v128.bitselect (local.get $wv) (local.get $wOld) (local.get $lanes)))
          (v128.store align=8 (i32.add (local.get $m) (local.get $o))
            (v128.bitselect (local.get $mm) (local.get $mOld) (local.get $lanes)))
          (v128.store align=8 (i32.add (local.get $v) (local.get $o))
            (v128.bitselect (local.get $vv) (local.get $vOld) (local.get $lanes)))
          (v128.store align=8 (i32.add (local.get $w) (local.get $o)) (local.get $wv))))
        ;; outside: not (low < w < high), on the pair's own lanes
        (local.set $lowv (v128.load align=8 (i32.add (local.get $low) (local.get $o))))
        (local.set $highv (v128.load align=8 (i32.add (local.get $high) (local.get $o))))
        (local.set $outside (v128.and (local.get $lanes) (v128.not (v128.and
          (f64x2.gt (local.get $wv) (local.get $lowv))
          (f64x2.lt (local.get $wv) (local.get $highv))))))
        (local.set $wqv (v128.load align=8 (i32.add (local.get $wq) (local.get $o))))
        (if (v128.any_true (local.get $outside)) (then
          ;; c = x < below ? below : x > above ? above : x, x = w / s; r = c === 0 ? c : c + magic - magic
          (local.set $x (f64x2.div (local.get $wv) (local.get $S)))
          (local.set $c (v128.bitselect (local.get $BELOW)
            (v128.bitselect (local.get $ABOVE) (local.get $x) (f64x2.gt (local.get $x) (local.get $ABOVE)))
            (f64x2.lt (local.get $x) (local.get $BELOW))))
          (local.set $r (v128.bitselect (local.get $c)
            (f64x2.sub (f64x2.add (local.get $c) (local.get $MAGIC)) (local.get $MAGIC))
            (f64x2.eq (local.get $c) (f64x2.splat (f64.const 0)))))
          (local.set $q (f64x2.add (local.get $r) (local.get $Z)))
          (local.set $satv (v128.bitselect
            (v128.or (f64x2.lt (local.get $q) (local.get $QMIN)) (f64x2.gt (local.get $q) (local.get $QMAX)))
            (local.get $satv) (local.get $outside)))
          (v128.store align=8 (i32.add (local.get $sat) (local.get $o)) (local.get $satv))
          ;; wq = ((q < qmin ? qmin : q > qmax ? qmax : q) - z) * s
          (local.set $wqv (v128.bitselect
            (f64x2.mul
              (f64x2.sub
                (v128.bitselect (local.get $QMIN)
                  (v128.bitselect (local.get $QMAX) (local.get $q) (f64x2.gt (local.get $q) (local.get $QMAX)))
                  (f64x2.lt (local.get $q) (local.get $QMIN)))
                (local.get $Z))
              (local.get $S))
            (local.get $wqv) (local.get $outside)))
          (v128.store align=8 (i32.add (local.get $wq) (local.get $o)) (local.get $wqv))
          (if (local.get $interval) (then
            ;; low = r <= below ? -inf : s * (r - 0.5 + margin); high = r >= above ? inf : s * (r + 0.5 - margin)
            (v128.store align=8 (i32.add (local.get $low) (local.get $o)) (v128.bitselect
              (v128.bitselect (local.get $NEGINF)
                (f64x2.mul (local.get $S) (f64x2.add (f64x2.sub (local.get $r) (local.get $HALF)) (local.get $MARGIN)))
                (f64x2.le (local.get $r) (local.get $BELOW)))
              (local.get $lowv) (local.get $outside)))
            (v128.store align=8 (i32.add (local.get $high) (local.get $o)) (v128.bitselect
              (v128.bitselect (local.get $POSINF)
                (f64x2.mul (local.get $S) (f64x2.sub (f64x2.add (local.get $r) (local.get $HALF)) (local.get $MARGIN)))
                (f64x2.ge (local.get $r) (local.get $ABOVE)))
              (local.get $highv) (local.get $outside)))))))
        ;; listed where wq is not bit for bit the objective's value (or either is NaN), in increasing order
        (local.set $curv (v128.load align=8 (i32.add (local.get $cur) (local.get $o))))
        (local.set $bits (i32.and (local.get $laneBits) (i64x2.bitmask (v128.or
          (i64x2.ne (local.get $wqv) (local.get $curv))
          (f64x2.ne (local.get $wqv) (local.get $curv))))))
        (i32.store (i32.add (local.get $changed) (i32.shl (local.get $count) (i32.const 2))) (local.get $at))
        (local.set $count (i32.add (local.get $count) (i32.and (local.get $bits) (i32.const 1))))
        (i32.store (i32.add (local.get $changed) (i32.shl (local.get $count) (i32.const 2)))
          (i32.add (local.get $at) (i32.const 1)))
        (local.set $count (i32.add (local.get $count) (i32.shr_u (local.get $bits) (i32.const 1))))
        (local.set $at (i32.add (local.get $at) (i32.const 2)))
        (br $pair)))
      ;; the channel's bias entry (at `end`): Adam's step with UpdateBias (no saturation), wq = w or 0
      (local.set $o (i32.shl (local.get $end) (i32.const 3)))
      (if (i32.and (local.get $adam) (local.get $updateBias)) (then
        (local.set $bg (f64.mul (f64.const 2) (f64.sub
          (f64.load (i32.add (local.get $gv) (local.get $o)))
          (f64.load (i32.add (local.get $cross) (local.get $o))))))
        (local.set $bm (f64.add (f64.mul (local.get $b1) (f64.load (i32.add (local.get $m) (local.get $o))))
          (f64.mul (local.get $omb1) (local.get $bg))))
        (local.set $bv (f64.add (f64.mul (local.get $b2) (f64.load (i32.add (local.get $v) (local.get $o))))
          (f64.mul (f64.mul (local.get $omb2) (local.get $bg)) (local.get $bg))))
        (f64.store (i32.add (local.get $m) (local.get $o)) (local.get $bm))
        (f64.store (i32.add (local.get $v) (local.get $o)) (local.get $bv))
        (local.set $bw (f64.sub (f64.load (i32.add (local.get $w) (local.get $o)))
          (f64.div
            (f64.mul (local.get $lr) (f64.div (local.get $bm) (local.get $c1)))
            (f64.add (f64.sqrt (f64.div (local.get $bv) (local.get $c2))) (local.get $eps)))))
        (f64.store (i32.add (local.get $w) (local.get $o)) (local.get $bw))))
      (local.set $next (if (result f64) (local.get $updateBias)
        (then (f64.load (i32.add (local.get $w) (local.get $o))))
        (else (f64.const 0))))
      (f64.store (i32.add (local.get $wq) (local.get $o)) (local.get $next))
      (local.set $bc (f64.load (i32.add (local.get $cur) (local.get $o))))
      (if (i32.or
            (i64.ne (i64.reinterpret_f64 (local.get $next)) (i64.reinterpret_f64 (local.get $bc)))
            (f64.ne (local.get $next) (local.get $bc)))
        (then
          (i32.store (i32.add (local.get $changed) (i32.shl (local.get $count) (i32.const 2))) (local.get $end))
          (local.set $count (i32.add (local.get $count) (i32.const 1)))))
      (local.set $ch (i32.add (local.get $ch) (i32.const 1)))
      (br $channel)))
    (local.get $count))

  ;; tau + sum over the n entries of value * (gv - 2 * cross), added one entry at a time in increasing order (the
  ;; objective's own sum, incrementalObjective.ts): the products two at a time, the additions in the same order.
  (func (export "loss") (param $value i32) (param $gv i32) (param $cross i32) (param $n i32) (param $tau f64)
      (result f64)
    (local $o i32) (local $end i32) (local $pairs i32) (local $p v128) (local $total f64)
    (local.set $total (local.get $tau))
    (local.set $end (i32.shl (local.get $n) (i32.const 3)))
    (local.set $pairs (i32.shl (i32.and (local.get $n) (i32.const -2)) (i32.const 3)))
    (block $done (loop $pair
      (br_if $done (i32.ge_u (local.get $o) (local.get $pairs)))
      (local.set $p (f64x2.mul
        (v128.load align=8 (i32.add (local.get $value) (local.get $o)))
        (f64x2.sub
          (v128.load align=8 (i32.add (local.get $gv) (local.get $o)))
          (f64x2.mul (f64x2.splat (f64.const 2)) (v128.load align=8 (i32.add (local.get $cross) (local.get $o)))))))
      (local.set $total (f64.add (local.get $total) (f64x2.extract_lane 0 (local.get $p))))
      (local.set $total (f64.add (local.get $total) (f64x2.extract_lane 1 (local.get $p))))
      (local.set $o (i32.add (local.get $o) (i32.const 16)))
      (br $pair)))
    (if (i32.lt_u (local.get $o) (local.get $end)) (then
      (local.set $total (f64.add (local.get $total) (f64.mul
        (f64.load (i32.add (local.get $value) (local.get $o)))
        (f64.sub
          (f64.load (i32.add (local.get $gv) (local.get $o)))
          (f64.mul (f64.const 2) (f64.load (i32.add (local.get $cross) (local.get $o))))))))))
    (local.get $total)))
