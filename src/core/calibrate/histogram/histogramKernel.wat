;; The histogram's hot loops in WebAssembly SIMD (histogramKernel.ts explains their use and holds nothing else of the
;; histogram's logic; histogram.ts keeps the plain TypeScript loops they must agree with, bin for bin). Built into
;; histogramKernelWasm.ts by scripts/build-kernels.ts; edit this text, never the bytes.
;;
;; Memory: bytes 0..12 hold the last call's extremes (float32 min, max, min |x|); the caller passes the byte offsets
;; of the values (float32) and of the counts (int32, four interleaved copies: bin j of lane k at counts + 16 j + 4 k,
;; so that runs of equal values, a ReLU's zeros, do not wait on one counter's previous increment).
;;
;; A value x (|x| when abs) goes to bin floor(x * inv) - offset, computed in float64 exactly as the TypeScript does;
;; bins lie in [0, cap). NaN and ±Infinity take part in the extremes (f32x4.min and max propagate them: the caller
;; sees a non-finite extreme and takes its checked path) and are never counted.
(module
  (memory (export "memory") 1)

  ;; Extremes of n values (float32 min, max, min |x|) into bytes 0..12.
  (func (export "extremes") (param $at i32) (param $n i32)
    (local $i i32) (local $end i32) (local $v v128) (local $w v128)
    (local $lo v128) (local $hi v128) (local $alo v128) (local $lo2 v128) (local $hi2 v128) (local $alo2 v128)
    (local $x f32) (local $l f32) (local $h f32) (local $a f32)
    (local.set $lo (f32x4.splat (f32.const inf)))
    (local.set $hi (f32x4.splat (f32.const -inf)))
    (local.set $alo (f32x4.splat (f32.const inf)))
    (local.set $lo2 (local.get $lo))
    (local.set $hi2 (local.get $hi))
    (local.set $alo2 (local.get $alo))
    ;; eight values a step, in two independent chains
    (local.set $end (i32.add (local.get $at) (i32.shl (i32.and (local.get $n) (i32.const -8)) (i32.const 2))))
    (local.set $i (local.get $at))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $w (v128.load offset=16 (local.get $i)))
        (local.set $lo (f32x4.min (local.get $lo) (local.get $v)))
        (local.set $hi (f32x4.max (local.get $hi) (local.get $v)))
        (local.set $alo (f32x4.min (local.get $alo) (f32x4.abs (local.get $v))))
        (local.set $lo2 (f32x4.min (local.get $lo2) (local.get $w)))
        (local.set $hi2 (f32x4.max (local.get $hi2) (local.get $w)))
        (local.set $alo2 (f32x4.min (local.get $alo2) (f32x4.abs (local.get $w))))
        (local.set $i (i32.add (local.get $i) (i32.const 32)))
        (br $step)))
    (local.set $lo (f32x4.min (local.get $lo) (local.get $lo2)))
    (local.set $hi (f32x4.max (local.get $hi) (local.get $hi2)))
    (local.set $alo (f32x4.min (local.get $alo) (local.get $alo2)))
    (local.set $l (f32.min (f32.min (f32x4.extract_lane 0 (local.get $lo)) (f32x4.extract_lane 1 (local.get $lo)))
                           (f32.min (f32x4.extract_lane 2 (local.get $lo)) (f32x4.extract_lane 3 (local.get $lo)))))
    (local.set $h (f32.max (f32.max (f32x4.extract_lane 0 (local.get $hi)) (f32x4.extract_lane 1 (local.get $hi)))
                           (f32.max (f32x4.extract_lane 2 (local.get $hi)) (f32x4.extract_lane 3 (local.get $hi)))))
    (local.set $a (f32.min (f32.min (f32x4.extract_lane 0 (local.get $alo)) (f32x4.extract_lane 1 (local.get $alo)))
                           (f32.min (f32x4.extract_lane 2 (local.get $alo)) (f32x4.extract_lane 3 (local.get $alo)))))
    ;; the last n mod 8 values
    (local.set $end (i32.add (local.get $at) (i32.shl (local.get $n) (i32.const 2))))
    (block $tail
      (loop $one
        (br_if $tail (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $x (f32.load (local.get $i)))
        (local.set $l (f32.min (local.get $l) (local.get $x)))
        (local.set $h (f32.max (local.get $h) (local.get $x)))
        (local.set $a (f32.min (local.get $a) (f32.abs (local.get $x))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $one)))
    (f32.store (i32.const 0) (local.get $l))
    (f32.store offset=4 (i32.const 0) (local.get $h))
    (f32.store offset=8 (i32.const 0) (local.get $a))
  )

  ;; Counts one value into lane 0 when its bin lies in [0, cap); returns 1 when it does not (NaN included).
  (func $countOne (param $counts i32) (param $x f32) (param $inv f64) (param $offset f64) (param $cap f64) (result i32)
    (local $j f64) (local $p i32)
    (local.set $j (f64.sub (f64.floor (f64.mul (f64.promote_f32 (local.get $x)) (local.get $inv))) (local.get $offset)))
    (if (result i32) (i32.and (f64.ge (local.get $j) (f64.const 0)) (f64.lt (local.get $j) (local.get $cap)))
      (then
        (local.set $p (i32.add (local.get $counts) (i32.shl (i32.trunc_f64_s (local.get $j)) (i32.const 4))))
        (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
        (i32.const 0))
      (else (i32.const 1))))

  ;; Counts the n values at `at` whose bins lie in [0, cap) (|x| when abs ≠ 0) and returns how many were not
  ;; counted (outside the bins, or not finite); their extremes go to bytes 0..12 as `extremes` writes them.
  (func (export "countInside") (param $counts i32) (param $at i32) (param $n i32) (param $inv f64) (param $offset f64)
      (param $cap f64) (param $abs i32) (result i32)
    (local $i i32) (local $end i32) (local $v v128) (local $w v128) (local $a v128) (local $mask v128)
    (local $lo v128) (local $hi v128) (local $alo v128)
    (local $invv v128) (local $offv v128) (local $capv v128) (local $zero v128) (local $lanes v128)
    (local $j0 v128) (local $j1 v128) (local $idx v128) (local $p i32) (local $outside i32)
    (local $x f32) (local $l f32) (local $h f32) (local $al f32)
    (local.set $lo (f32x4.splat (f32.const inf)))
    (local.set $hi (f32x4.splat (f32.const -inf)))
    (local.set $alo (f32x4.splat (f32.const inf)))
    (local.set $mask (i32x4.splat (i32.sub (i32.const 0) (i32.ne (local.get $abs) (i32.const 0)))))
    (local.set $invv (f64x2.splat (local.get $inv)))
    (local.set $offv (f64x2.splat (local.get $offset)))
    (local.set $capv (f64x2.splat (local.get $cap)))
    (local.set $zero (f64x2.splat (f64.const 0)))
    (local.set $lanes (i32x4.add (i32x4.splat (local.get $counts)) (v128.const i32x4 0 4 8 12)))
    (local.set $end (i32.add (local.get $at) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (local.set $i (local.get $at))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $a (f32x4.abs (local.get $v)))
        (local.set $lo (f32x4.min (local.get $lo) (local.get $v)))
        (local.set $hi (f32x4.max (local.get $hi) (local.get $v)))
        (local.set $alo (f32x4.min (local.get $alo) (local.get $a)))
        (local.set $w (v128.bitselect (local.get $a) (local.get $v) (local.get $mask)))
        ;; bins of the four values, two float64 lanes at a time
        (local.set $j0 (f64x2.sub (f64x2.floor (f64x2.mul (f64x2.promote_low_f32x4 (local.get $w)) (local.get $invv))) (local.get $offv)))
        (local.set $j1 (f64x2.sub (f64x2.floor (f64x2.mul
          (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $w) (local.get $w)))
          (local.get $invv))) (local.get $offv)))
        (if (i64x2.all_true (v128.and
              (v128.and (f64x2.ge (local.get $j0) (local.get $zero)) (f64x2.lt (local.get $j0) (local.get $capv)))
              (v128.and (f64x2.ge (local.get $j1) (local.get $zero)) (f64x2.lt (local.get $j1) (local.get $capv)))))
          (then
            (local.set $idx (i32x4.add (local.get $lanes) (i32x4.shl
              (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
                (i32x4.trunc_sat_f64x2_s_zero (local.get $j0)) (i32x4.trunc_sat_f64x2_s_zero (local.get $j1)))
              (i32.const 4))))
            (local.set $p (i32x4.extract_lane 0 (local.get $idx)))
            (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
            (local.set $p (i32x4.extract_lane 1 (local.get $idx)))
            (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
            (local.set $p (i32x4.extract_lane 2 (local.get $idx)))
            (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
            (local.set $p (i32x4.extract_lane 3 (local.get $idx)))
            (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1))))
          (else
            ;; some value of the four is outside the bins or not finite: one at a time, into lane 0
            (local.set $outside (i32.add (local.get $outside)
              (call $countOne (local.get $counts) (f32x4.extract_lane 0 (local.get $w)) (local.get $inv) (local.get $offset) (local.get $cap))))
            (local.set $outside (i32.add (local.get $outside)
              (call $countOne (local.get $counts) (f32x4.extract_lane 1 (local.get $w)) (local.get $inv) (local.get $offset) (local.get $cap))))
            (local.set $outside (i32.add (local.get $outside)
              (call $countOne (local.get $counts) (f32x4.extract_lane 2 (local.get $w)) (local.get $inv) (local.get $offset) (local.get $cap))))
            (local.set $outside (i32.add (local.get $outside)
              (call $countOne (local.get $counts) (f32x4.extract_lane 3 (local.get $w)) (local.get $inv) (local.get $offset) (local.get $cap))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $step)))
    (local.set $l (f32.min (f32.min (f32x4.extract_lane 0 (local.get $lo)) (f32x4.extract_lane 1 (local.get $lo)))
                           (f32.min (f32x4.extract_lane 2 (local.get $lo)) (f32x4.extract_lane 3 (local.get $lo)))))
    (local.set $h (f32.max (f32.max (f32x4.extract_lane 0 (local.get $hi)) (f32x4.extract_lane 1 (local.get $hi)))
                           (f32.max (f32x4.extract_lane 2 (local.get $hi)) (f32x4.extract_lane 3 (local.get $hi)))))
    (local.set $al (f32.min (f32.min (f32x4.extract_lane 0 (local.get $alo)) (f32x4.extract_lane 1 (local.get $alo)))
                            (f32.min (f32x4.extract_lane 2 (local.get $alo)) (f32x4.extract_lane 3 (local.get $alo)))))
    (local.set $end (i32.add (local.get $at) (i32.shl (local.get $n) (i32.const 2))))
    (block $tail
      (loop $one
        (br_if $tail (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $x (f32.load (local.get $i)))
        (local.set $l (f32.min (local.get $l) (local.get $x)))
        (local.set $h (f32.max (local.get $h) (local.get $x)))
        (local.set $al (f32.min (local.get $al) (f32.abs (local.get $x))))
        (if (local.get $abs) (then (local.set $x (f32.abs (local.get $x)))))
        (local.set $outside (i32.add (local.get $outside)
          (call $countOne (local.get $counts) (local.get $x) (local.get $inv) (local.get $offset) (local.get $cap))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $one)))
    (f32.store (i32.const 0) (local.get $l))
    (f32.store offset=4 (i32.const 0) (local.get $h))
    (f32.store offset=8 (i32.const 0) (local.get $al))
    (local.get $outside)
  )

  ;; `countInside` in float32, for layouts where it is exact (histogramKernel.ts says when): four values a step.
  (func (export "countInside32") (param $counts i32) (param $at i32) (param $n i32) (param $inv f32) (param $offset f32)
      (param $cap f32) (param $abs i32) (result i32)
    (local $i i32) (local $end i32) (local $v v128) (local $a v128) (local $mask v128) (local $w v128)
    (local $lo v128) (local $hi v128) (local $alo v128)
    (local $invv v128) (local $offv v128) (local $capv v128) (local $zero v128) (local $lanes v128)
    (local $j v128) (local $idx v128) (local $p i32) (local $outside i32)
    (local $x f32) (local $l f32) (local $h f32) (local $al f32)
    (local.set $lo (f32x4.splat (f32.const inf)))
    (local.set $hi (f32x4.splat (f32.const -inf)))
    (local.set $alo (f32x4.splat (f32.const inf)))
    (local.set $mask (i32x4.splat (i32.sub (i32.const 0) (i32.ne (local.get $abs) (i32.const 0)))))
    (local.set $invv (f32x4.splat (local.get $inv)))
    (local.set $offv (f32x4.splat (local.get $offset)))
    (local.set $capv (f32x4.splat (local.get $cap)))
    (local.set $zero (f32x4.splat (f32.const 0)))
    (local.set $lanes (i32x4.add (i32x4.splat (local.get $counts)) (v128.const i32x4 0 4 8 12)))
    (local.set $end (i32.add (local.get $at) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (local.set $i (local.get $at))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $a (f32x4.abs (local.get $v)))
        (local.set $lo (f32x4.min (local.get $lo) (local.get $v)))
        (local.set $hi (f32x4.max (local.get $hi) (local.get $v)))
        (local.set $alo (f32x4.min (local.get $alo) (local.get $a)))
        (local.set $w (v128.bitselect (local.get $a) (local.get $v) (local.get $mask)))
        (local.set $j (f32x4.sub (f32x4.floor (f32x4.mul (local.get $w) (local.get $invv))) (local.get $offv)))
        (if (i32x4.all_true (v128.and (f32x4.ge (local.get $j) (local.get $zero)) (f32x4.lt (local.get $j) (local.get $capv))))
          (then
            (local.set $idx (i32x4.add (local.get $lanes) (i32x4.shl (i32x4.trunc_sat_f32x4_s (local.get $j)) (i32.const 4))))
            (local.set $p (i32x4.extract_lane 0 (local.get $idx)))
            (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
            (local.set $p (i32x4.extract_lane 1 (local.get $idx)))
            (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
            (local.set $p (i32x4.extract_lane 2 (local.get $idx)))
            (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
            (local.set $p (i32x4.extract_lane 3 (local.get $idx)))
            (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1))))
          (else
            (local.set $outside (i32.add (local.get $outside) (call $countOne32 (local.get $counts) (f32x4.extract_lane 0 (local.get $w)) (local.get $inv) (local.get $offset) (local.get $cap))))
            (local.set $outside (i32.add (local.get $outside) (call $countOne32 (local.get $counts) (f32x4.extract_lane 1 (local.get $w)) (local.get $inv) (local.get $offset) (local.get $cap))))
            (local.set $outside (i32.add (local.get $outside) (call $countOne32 (local.get $counts) (f32x4.extract_lane 2 (local.get $w)) (local.get $inv) (local.get $offset) (local.get $cap))))
            (local.set $outside (i32.add (local.get $outside) (call $countOne32 (local.get $counts) (f32x4.extract_lane 3 (local.get $w)) (local.get $inv) (local.get $offset) (local.get $cap))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $step)))
    (local.set $l (f32.min (f32.min (f32x4.extract_lane 0 (local.get $lo)) (f32x4.extract_lane 1 (local.get $lo)))
                           (f32.min (f32x4.extract_lane 2 (local.get $lo)) (f32x4.extract_lane 3 (local.get $lo)))))
    (local.set $h (f32.max (f32.max (f32x4.extract_lane 0 (local.get $hi)) (f32x4.extract_lane 1 (local.get $hi)))
                           (f32.max (f32x4.extract_lane 2 (local.get $hi)) (f32x4.extract_lane 3 (local.get $hi)))))
    (local.set $al (f32.min (f32.min (f32x4.extract_lane 0 (local.get $alo)) (f32x4.extract_lane 1 (local.get $alo)))
                            (f32.min (f32x4.extract_lane 2 (local.get $alo)) (f32x4.extract_lane 3 (local.get $alo)))))
    (local.set $end (i32.add (local.get $at) (i32.shl (local.get $n) (i32.const 2))))
    (block $tail
      (loop $one
        (br_if $tail (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $x (f32.load (local.get $i)))
        (local.set $l (f32.min (local.get $l) (local.get $x)))
        (local.set $h (f32.max (local.get $h) (local.get $x)))
        (local.set $al (f32.min (local.get $al) (f32.abs (local.get $x))))
        (if (local.get $abs) (then (local.set $x (f32.abs (local.get $x)))))
        (local.set $outside (i32.add (local.get $outside) (call $countOne32 (local.get $counts) (local.get $x) (local.get $inv) (local.get $offset) (local.get $cap))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $one)))
    (f32.store (i32.const 0) (local.get $l))
    (f32.store offset=4 (i32.const 0) (local.get $h))
    (f32.store offset=8 (i32.const 0) (local.get $al))
    (local.get $outside)
  )

  ;; `$countOne` in float32.
  (func $countOne32 (param $counts i32) (param $x f32) (param $inv f32) (param $offset f32) (param $cap f32) (result i32)
    (local $j f32) (local $p i32)
    (local.set $j (f32.sub (f32.floor (f32.mul (local.get $x) (local.get $inv))) (local.get $offset)))
    (if (result i32) (i32.and (f32.ge (local.get $j) (f32.const 0)) (f32.lt (local.get $j) (local.get $cap)))
      (then
        (local.set $p (i32.add (local.get $counts) (i32.shl (i32.trunc_f32_s (local.get $j)) (i32.const 4))))
        (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
        (i32.const 0))
      (else (i32.const 1))))

;; The second pass of a batch that did not fit the old layout (oldInv, oldOffset): counts, at the new layout, the
  ;; finite values the old one could not hold; groups of four values all inside the old bins are skipped in SIMD.
  ;; Returns how many values were not finite.
  (func (export "countOutside") (param $counts i32) (param $at i32) (param $n i32) (param $oldInv f64) (param $oldOffset f64)
      (param $inv f64) (param $offset f64) (param $cap f64) (param $abs i32) (result i32)
    (local $i i32) (local $end i32) (local $v v128) (local $w v128) (local $mask v128) (local $bad i32) (local $k i32)
    (local $invv v128) (local $offv v128) (local $capv v128) (local $zero v128) (local $j0 v128) (local $j1 v128)
    (local.set $mask (i32x4.splat (i32.sub (i32.const 0) (i32.ne (local.get $abs) (i32.const 0)))))
    (local.set $invv (f64x2.splat (local.get $oldInv)))
    (local.set $offv (f64x2.splat (local.get $oldOffset)))
    (local.set $capv (f64x2.splat (local.get $cap)))
    (local.set $zero (f64x2.splat (f64.const 0)))
    (local.set $end (i32.add (local.get $at) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (local.set $i (local.get $at))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $w (v128.bitselect (f32x4.abs (local.get $v)) (local.get $v) (local.get $mask)))
        (local.set $j0 (f64x2.sub (f64x2.floor (f64x2.mul (f64x2.promote_low_f32x4 (local.get $w)) (local.get $invv))) (local.get $offv)))
        (local.set $j1 (f64x2.sub (f64x2.floor (f64x2.mul
          (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $w) (local.get $w)))
          (local.get $invv))) (local.get $offv)))
        (if (i32.eqz (i64x2.all_true (v128.and
              (v128.and (f64x2.ge (local.get $j0) (local.get $zero)) (f64x2.lt (local.get $j0) (local.get $capv)))
              (v128.and (f64x2.ge (local.get $j1) (local.get $zero)) (f64x2.lt (local.get $j1) (local.get $capv))))))
          (then
            (local.set $bad (i32.add (local.get $bad)
              (call $outsideOne (local.get $counts) (f32x4.extract_lane 0 (local.get $w)) (local.get $oldInv) (local.get $oldOffset) (local.get $inv) (local.get $offset) (local.get $cap))))
            (local.set $bad (i32.add (local.get $bad)
              (call $outsideOne (local.get $counts) (f32x4.extract_lane 1 (local.get $w)) (local.get $oldInv) (local.get $oldOffset) (local.get $inv) (local.get $offset) (local.get $cap))))
            (local.set $bad (i32.add (local.get $bad)
              (call $outsideOne (local.get $counts) (f32x4.extract_lane 2 (local.get $w)) (local.get $oldInv) (local.get $oldOffset) (local.get $inv) (local.get $offset) (local.get $cap))))
            (local.set $bad (i32.add (local.get $bad)
              (call $outsideOne (local.get $counts) (f32x4.extract_lane 3 (local.get $w)) (local.get $oldInv) (local.get $oldOffset) (local.get $inv) (local.get $offset) (local.get $cap))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $step)))
    (local.set $end (i32.add (local.get $at) (i32.shl (local.get $n) (i32.const 2))))
    (block $tail
      (loop $one
        (br_if $tail (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v (v128.load32_zero (local.get $i)))
        (local.set $w (v128.bitselect (f32x4.abs (local.get $v)) (local.get $v) (local.get $mask)))
        (local.set $bad (i32.add (local.get $bad)
          (call $outsideOne (local.get $counts) (f32x4.extract_lane 0 (local.get $w)) (local.get $oldInv) (local.get $oldOffset) (local.get $inv) (local.get $offset) (local.get $cap))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $one)))
    (local.get $bad)
  )

  ;; One value of the second pass: 1 when it is not finite; else counted at the new layout unless the old one held it.
  (func $outsideOne (param $counts i32) (param $x f32) (param $oldInv f64) (param $oldOffset f64) (param $inv f64) (param $offset f64)
      (param $cap f64) (result i32)
    (local $j f64)
    (if (f32.ne (f32.sub (local.get $x) (local.get $x)) (f32.const 0)) (then (return (i32.const 1))))
    (local.set $j (f64.sub (f64.floor (f64.mul (f64.promote_f32 (local.get $x)) (local.get $oldInv))) (local.get $oldOffset)))
    (if (i32.eqz (i32.and (f64.ge (local.get $j) (f64.const 0)) (f64.lt (local.get $j) (local.get $cap))))
      (then (drop (call $countOne (local.get $counts) (local.get $x) (local.get $inv) (local.get $offset) (local.get $cap)))))
    (i32.const 0))
)
