;; AdaRound's per-weight step in WebAssembly SIMD, four float32 weights at a time (roundingKernel.ts explains the
;; layout and holds the plain TypeScript loop this must agree with). Built into roundingKernelWasm.ts by
;; scripts/build-kernels.ts; edit this text, never the bytes.
;;
;; Every array is float32 (learning and leftAt int32), packed: position q is the q-th weight still learning. The
;; caller passes byte offsets into this module's memory and n, the weights still learning; arrays have room for n
;; rounded up to 4, and lanes past n are computed and ignored.
(module
  (memory (export "memory") 1)

  ;; e^x per lane (Cephes expf: x = n*ln2 + r, |r| <= ln2/2, degree-6 polynomial, 2^n built in the exponent bits);
  ;; x is clamped to [-87.3, 88.3] so 2^n stays a normal number. Relative error about 2e-7.
  (func $exp4 (param $x v128) (result v128)
    (local $n v128) (local $r v128) (local $p v128)
    (local.set $x (f32x4.min (f32x4.max (local.get $x) (f32x4.splat (f32.const -87.3))) (f32x4.splat (f32.const 88.3))))
    (local.set $n (f32x4.nearest (f32x4.mul (local.get $x) (f32x4.splat (f32.const 1.44269504088896341)))))
    (local.set $r (f32x4.sub
      (f32x4.sub (local.get $x) (f32x4.mul (local.get $n) (f32x4.splat (f32.const 0.693359375))))
      (f32x4.mul (local.get $n) (f32x4.splat (f32.const -2.12194440e-4)))))
    (local.set $p (f32x4.splat (f32.const 1.9875691500e-4)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 1.3981999507e-3))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 8.3334519073e-3))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 4.1665795894e-2))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 1.6666665459e-1))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $r)) (f32x4.splat (f32.const 5.0000001201e-1))))
    (local.set $p (f32x4.add
      (f32x4.add (f32x4.mul (f32x4.mul (local.get $p) (local.get $r)) (local.get $r)) (local.get $r))
      (f32x4.splat (f32.const 1))))
    (f32x4.mul (local.get $p)
      (i32x4.shl (i32x4.add (i32x4.trunc_sat_f32x4_s (local.get $n)) (i32x4.splat (i32.const 127))) (i32.const 23))))

  ;; ln x per lane for x > 0 (Cephes logf: x = m*2^e, m in [sqrt(1/2), sqrt(2)), degree-9 polynomial in m - 1). Relative
  ;; error about 2e-7. x = 0 gives a finite wrong value: callers mask it.
  (func $log4 (param $x v128) (result v128)
    (local $e v128) (local $m v128) (local $small v128) (local $z v128) (local $y v128) (local $ef v128)
    (local.set $e (i32x4.sub (i32x4.shr_u (local.get $x) (i32.const 23)) (i32x4.splat (i32.const 126))))
    (local.set $m (v128.or (v128.and (local.get $x) (i32x4.splat (i32.const 0x807fffff))) (i32x4.splat (i32.const 0x3f000000))))
    ;; m in [1/2, 1): below sqrt(1/2) take 2m - 1 and one less in the exponent, else m - 1
    (local.set $small (f32x4.lt (local.get $m) (f32x4.splat (f32.const 0.707106781186547524))))
    (local.set $e (i32x4.add (local.get $e) (local.get $small)))
    (local.set $x (f32x4.add
      (f32x4.sub (local.get $m) (f32x4.splat (f32.const 1)))
      (v128.and (local.get $m) (local.get $small))))
    (local.set $ef (f32x4.convert_i32x4_s (local.get $e)))
    (local.set $z (f32x4.mul (local.get $x) (local.get $x)))
    (local.set $y (f32x4.splat (f32.const 7.0376836292e-2)))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const -1.1514610310e-1))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const 1.1676998740e-1))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const -1.2420140846e-1))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const 1.4249322787e-1))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const -1.6668057665e-1))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const 2.0000714765e-1))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const -2.4999993993e-1))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const 3.3333331174e-1))))
    (local.set $y (f32x4.mul (f32x4.mul (local.get $y) (local.get $x)) (local.get $z)))
    (local.set $y (f32x4.add (local.get $y) (f32x4.mul (local.get $ef) (f32x4.splat (f32.const -2.12194440e-4)))))
    (local.set $y (f32x4.sub (local.get $y) (f32x4.mul (local.get $z) (f32x4.splat (f32.const 0.5)))))
    (f32x4.add (f32x4.add (local.get $x) (local.get $y)) (f32x4.mul (local.get $ef) (f32x4.splat (f32.const 0.693359375)))))

  (func (export "exp") (param $at i32) (param $n i32)
    (local $o i32) (local $end i32)
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $o) (local.get $end)))
      (v128.store (i32.add (local.get $at) (local.get $o)) (call $exp4 (v128.load (i32.add (local.get $at) (local.get $o)))))
      (local.set $o (i32.add (local.get $o) (i32.const 16)))
      (br $next))))

  (func (export "log") (param $at i32) (param $n i32)
    (local $o i32) (local $end i32)
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $o) (local.get $end)))
      (v128.store (i32.add (local.get $at) (local.get $o)) (call $log4 (v128.load (i32.add (local.get $at) (local.get $o)))))
      (local.set $o (i32.add (local.get $o) (i32.const 16)))
      (br $next))))

  ;; h(V) = clip(sigmoid(V)*1.2 - 0.1, 0, 1), dh/dV (0 where h is clipped: the weight leaves), dw/dV (0 also where the
  ;; soft weight s*clip(floor(w/s) + h, lo, hi) is clipped), and that soft weight, for the first n weights. Returns how
  ;; many have h clipped.
  (func (export "soft") (param $V i32) (param $floor i32) (param $scale i32) (param $lo i32) (param $hi i32)
      (param $h i32) (param $dhdv i32) (param $dh i32) (param $w i32) (param $n i32) (result i32)
    (local $o i32) (local $end i32) (local $lane v128) (local $count v128)
    (local $sig v128) (local $raw v128) (local $hv v128) (local $x v128) (local $s v128) (local $lo4 v128) (local $hi4 v128)
    (local $below v128) (local $above v128) (local $leave v128) (local $d v128)
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (local.set $lane (v128.const i32x4 0 1 2 3))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $o) (local.get $end)))
      (local.set $sig (f32x4.div (f32x4.splat (f32.const 1))
        (f32x4.add (f32x4.splat (f32.const 1)) (call $exp4 (f32x4.neg (v128.load (i32.add (local.get $V) (local.get $o))))))))
      (local.set $raw (f32x4.add (f32x4.mul (local.get $sig) (f32x4.splat (f32.const 1.2))) (f32x4.splat (f32.const -0.1))))
      (local.set $hv (f32x4.min (f32x4.max (local.get $raw) (f32x4.splat (f32.const 0))) (f32x4.splat (f32.const 1))))
      (v128.store (i32.add (local.get $h) (local.get $o)) (local.get $hv))
      (local.set $x (f32x4.add (v128.load (i32.add (local.get $floor) (local.get $o))) (local.get $hv)))
      (local.set $lo4 (v128.load (i32.add (local.get $lo) (local.get $o))))
      (local.set $hi4 (v128.load (i32.add (local.get $hi) (local.get $o))))
      (local.set $below (f32x4.lt (local.get $x) (local.get $lo4)))
      (local.set $above (f32x4.gt (local.get $x) (local.get $hi4)))
      (local.set $s (v128.load (i32.add (local.get $scale) (local.get $o))))
      (v128.store (i32.add (local.get $w) (local.get $o)) (f32x4.mul (local.get $s)
        (v128.bitselect (local.get $lo4) (v128.bitselect (local.get $hi4) (local.get $x) (local.get $above)) (local.get $below))))
      (local.set $leave (v128.or
        (f32x4.le (local.get $raw) (f32x4.splat (f32.const 0)))
        (f32x4.ge (local.get $raw) (f32x4.splat (f32.const 1)))))
      (local.set $d (v128.andnot
        (f32x4.mul (f32x4.mul (local.get $sig) (f32x4.splat (f32.const 1.2))) (f32x4.sub (f32x4.splat (f32.const 1)) (local.get $sig)))
        (local.get $leave)))
      (v128.store (i32.add (local.get $dhdv) (local.get $o)) (local.get $d))
      (v128.store (i32.add (local.get $dh) (local.get $o))
        (v128.andnot (f32x4.mul (local.get $s) (local.get $d)) (v128.or (local.get $below) (local.get $above))))
      ;; count the leaving lanes below n (a true lane is -1)
      (local.set $count (i32x4.add (local.get $count) (v128.and (local.get $leave)
        (i32x4.lt_s (local.get $lane) (i32x4.splat (local.get $n))))))
      (local.set $lane (i32x4.add (local.get $lane) (i32x4.splat (i32.const 4))))
      (local.set $o (i32.add (local.get $o) (i32.const 16)))
      (br $next)))
    (i32.sub (i32.const 0) (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $count)) (i32x4.extract_lane 1 (local.get $count)))
      (i32.add (i32x4.extract_lane 2 (local.get $count)) (i32x4.extract_lane 3 (local.get $count))))))

  ;; One Adam step of V for the first n weights: the gradient is r*dh (r = 2(Gv - c) at the weight, given) and,
  ;; with lambda > 0, the rounding term's -lambdabeta|2h - 1|^(beta-1)*sign(2h - 1)*2*dh/dV where dh/dV != 0 and 2h != 1; then
  ;; m = beta1m + (1 - beta1)g, v = beta2v + (1 - beta2)g^2, V -= a*m / (sqrt(v*c) + eps) (a = lr / (1 - beta1^t), c = 1 / (1 - beta2^t)).
  (func (export "descend") (param $V i32) (param $m i32) (param $v i32) (param $h i32) (param $dhdv i32) (param $dh i32)
      (param $r i32) (param $n i32) (param $lambda f32) (param $beta f32) (param $b1 f32) (param $b2 f32) (param $a f32)
      (param $c f32) (param $eps f32)
    (local $o i32) (local $end i32) (local $g v128) (local $u v128) (local $d v128) (local $t v128) (local $mm v128) (local $vv v128)
    (local $scaleTerm v128) (local $power v128)
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (local.set $scaleTerm (f32x4.splat (f32.mul (f32.mul (local.get $lambda) (local.get $beta)) (f32.const 2))))
    (local.set $power (f32x4.splat (f32.sub (local.get $beta) (f32.const 1))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $o) (local.get $end)))
      (local.set $g (f32x4.mul (v128.load (i32.add (local.get $r) (local.get $o))) (v128.load (i32.add (local.get $dh) (local.get $o)))))
      (if (f32.gt (local.get $lambda) (f32.const 0)) (then
        (local.set $d (v128.load (i32.add (local.get $dhdv) (local.get $o))))
        (local.set $u (f32x4.sub (f32x4.mul (v128.load (i32.add (local.get $h) (local.get $o))) (f32x4.splat (f32.const 2))) (f32x4.splat (f32.const 1))))
        ;; lambdabeta*2*|u|^(beta-1)*dh/dV with u's sign, where dh/dV != 0 and u != 0
        (local.set $t (f32x4.mul (f32x4.mul (local.get $scaleTerm) (local.get $d))
          (call $exp4 (f32x4.mul (local.get $power) (call $log4 (f32x4.abs (local.get $u)))))))
        (local.set $t (v128.or (local.get $t) (v128.and (local.get $u) (i32x4.splat (i32.const 0x80000000)))))
        (local.set $t (v128.and (local.get $t) (v128.and
          (f32x4.ne (local.get $d) (f32x4.splat (f32.const 0)))
          (f32x4.ne (local.get $u) (f32x4.splat (f32.const 0))))))
        (local.set $g (f32x4.sub (local.get $g) (local.get $t)))))
      (local.set $mm (f32x4.add (f32x4.mul (f32x4.splat (local.get $b1)) (v128.load (i32.add (local.get $m) (local.get $o))))
        (f32x4.mul (f32x4.splat (f32.sub (f32.const 1) (local.get $b1))) (local.get $g))))
      (local.set $vv (f32x4.add (f32x4.mul (f32x4.splat (local.get $b2)) (v128.load (i32.add (local.get $v) (local.get $o))))
        (f32x4.mul (f32x4.splat (f32.sub (f32.const 1) (local.get $b2))) (f32x4.mul (local.get $g) (local.get $g)))))
      (v128.store (i32.add (local.get $m) (local.get $o)) (local.get $mm))
      (v128.store (i32.add (local.get $v) (local.get $o)) (local.get $vv))
      (v128.store (i32.add (local.get $V) (local.get $o)) (f32x4.sub (v128.load (i32.add (local.get $V) (local.get $o)))
        (f32x4.div (f32x4.mul (f32x4.splat (local.get $a)) (local.get $mm))
          (f32x4.add (f32x4.sqrt (f32x4.mul (local.get $vv) (f32x4.splat (local.get $c)))) (f32x4.splat (local.get $eps))))))
      (local.set $o (i32.add (local.get $o) (i32.const 16)))
      (br $next))))
)
