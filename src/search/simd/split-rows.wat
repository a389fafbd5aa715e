;; Kernels over split f32 rows (see split-rows.ts for the layout and the proof
;; of the bounds). Rows come as two planes: `stride` u16 high halves of a
;; row's f32 components (each a bfloat16: sign, exponent, 7 bits of mantissa),
;; row after row, and the `stride` u16 low halves likewise; beside them 8
;; bytes of f32 metadata per row (L ≥ the norm of the low parts, N ≥ the
;; row's norm). `stride` is a multiple of 16. The query is `stride` f32 values.
;;
;; `bounds` reads only the high halves (half the memory traffic of an f32
;; scan) and stores, per row, approx = Σ high_i · q_i (f32) and
;;   eps = L · $alpha + N · $beta + $eta,  lo[r] = approx − eps,  hi[r] = approx + eps.
;; `scores` rebuilds each f32 component bit for bit ((high << 16) | low) and
;; stores the exact f32 dot product, summed in one fixed order (two f32x4
;; accumulators over steps of 8, then the lanes as (0 + 1) + (2 + 3)), so a
;; row's score does not depend on which other rows were scored with it.
;; Both turn 16-bit halves into f32 lanes with one interleaving shuffle (the
;; 16-bit words of a zero vector, or of the low halves, with the high halves:
;; one punpcklwd/punpckhwd on x64), which measured faster than widening and
;; shifting.
;; `above` writes the indexes r (i32, ascending) of the rows whose hi[r] is
;; not ≤ $t (NaN included: the same rows a JS test `!(hi[r] <= t)` keeps when
;; $t is the largest f32 ≤ its f64 threshold) and returns how many, and
;; leaves the largest hi[r] (NaN never wins, as with a JS `>` test) for
;; `largest`: the hybrid search's candidate pass walks only those rows.
;; Compiled by scripts/build-wasm.ts into split-rows-wasm.ts; edit this
;; file, then run `npm run build:wasm`.
(module
  (import "env" "memory" (memory 1))
  (func (export "bounds")
    (param $rows i32) (param $meta i32) (param $q i32) (param $lo i32) (param $hi i32) (param $count i32) (param $stride i32)
    (param $alpha f32) (param $beta f32) (param $eta f32)
    (local $r i32) (local $j i32) (local $row i32) (local $half i32) (local $qp i32) (local $out i32)
    (local $a v128) (local $b v128) (local $c v128) (local $d v128) (local $x v128) (local $y v128)
    (local $approx f32) (local $eps f32)
    (local.set $half (i32.shl (local.get $stride) (i32.const 1)))
    (local.set $row (local.get $rows))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $r) (local.get $count)))
        (local.set $a (v128.const f32x4 0 0 0 0))
        (local.set $b (v128.const f32x4 0 0 0 0))
        (local.set $c (v128.const f32x4 0 0 0 0))
        (local.set $d (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $rowDone
          (loop $cols
            (br_if $rowDone (i32.ge_u (local.get $j) (local.get $half)))
            (local.set $x (v128.load (i32.add (local.get $row) (local.get $j))))
            (local.set $y (v128.load offset=16 (i32.add (local.get $row) (local.get $j))))
            (local.set $qp (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (v128.const i32x4 0 0 0 0) (local.get $x)) (v128.load (local.get $qp)))))
            (local.set $b (f32x4.add (local.get $b)
              (f32x4.mul (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (v128.const i32x4 0 0 0 0) (local.get $x)) (v128.load offset=16 (local.get $qp)))))
            (local.set $c (f32x4.add (local.get $c)
              (f32x4.mul (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (v128.const i32x4 0 0 0 0) (local.get $y)) (v128.load offset=32 (local.get $qp)))))
            (local.set $d (f32x4.add (local.get $d)
              (f32x4.mul (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (v128.const i32x4 0 0 0 0) (local.get $y)) (v128.load offset=48 (local.get $qp)))))
            (local.set $j (i32.add (local.get $j) (i32.const 32)))
            (br $cols)))
        (local.set $a (f32x4.add (f32x4.add (local.get $a) (local.get $b)) (f32x4.add (local.get $c) (local.get $d))))
        (local.set $approx
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
            (f32.add (f32x4.extract_lane 2 (local.get $a)) (f32x4.extract_lane 3 (local.get $a)))))
        (local.set $eps
          (f32.add
            (f32.add
              (f32.mul (f32.load (local.get $meta)) (local.get $alpha))
              (f32.mul (f32.load offset=4 (local.get $meta)) (local.get $beta)))
            (local.get $eta)))
        (local.set $out (i32.shl (local.get $r) (i32.const 2)))
        (f32.store (i32.add (local.get $lo) (local.get $out)) (f32.sub (local.get $approx) (local.get $eps)))
        (f32.store (i32.add (local.get $hi) (local.get $out)) (f32.add (local.get $approx) (local.get $eps)))
        (local.set $row (i32.add (local.get $row) (local.get $half)))
        (local.set $meta (i32.add (local.get $meta) (i32.const 8)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each))))

  (func (export "scores")
    (param $rows i32) (param $lows i32) (param $q i32) (param $out i32) (param $count i32) (param $stride i32)
    (local $r i32) (local $j i32) (local $row i32) (local $low i32) (local $half i32) (local $qp i32)
    (local $a v128) (local $b v128) (local $h v128) (local $l v128)
    (local.set $half (i32.shl (local.get $stride) (i32.const 1)))
    (local.set $row (local.get $rows))
    (local.set $low (local.get $lows))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $r) (local.get $count)))
        (local.set $a (v128.const f32x4 0 0 0 0))
        (local.set $b (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $rowDone
          (loop $cols
            (br_if $rowDone (i32.ge_u (local.get $j) (local.get $half)))
            (local.set $h (v128.load (i32.add (local.get $row) (local.get $j))))
            (local.set $l (v128.load (i32.add (local.get $low) (local.get $j))))
            (local.set $qp (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1))))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul
                (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $l) (local.get $h))
                (v128.load (local.get $qp)))))
            (local.set $b (f32x4.add (local.get $b)
              (f32x4.mul
                (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $l) (local.get $h))
                (v128.load offset=16 (local.get $qp)))))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (br $cols)))
        (local.set $a (f32x4.add (local.get $a) (local.get $b)))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
            (f32.add (f32x4.extract_lane 2 (local.get $a)) (f32x4.extract_lane 3 (local.get $a)))))
        (local.set $row (i32.add (local.get $row) (local.get $half)))
        (local.set $low (i32.add (local.get $low) (local.get $half)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each))))

;; `split` stores `count` f32 rows of `d` components, end to end at $src, as
;; their high and low 16-bit halves in two planes of `stride` u16 a row (from
;; $high and $low, zero-padded to the stride): eight components a step, two
;; loads and one byte shuffle per plane (a row's halves are its bytes 2–3 and
;; 0–1, little-endian), the last d mod 8 one at a time. Bit for bit the JS
;; split in split-rows.ts.
  (func (export "split")
    (param $src i32) (param $count i32) (param $d i32) (param $stride i32) (param $high i32) (param $low i32)
    (local $r i32) (local $j i32) (local $half i32) (local $end8 i32) (local $at i32) (local $x i32) (local $a v128) (local $b v128)
    (local.set $half (i32.shl (local.get $stride) (i32.const 1)))
    (local.set $end8 (i32.and (local.get $d) (i32.const -8)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $r) (local.get $count)))
        (local.set $j (i32.const 0))
        (block $stepsDone
          (loop $steps
            (br_if $stepsDone (i32.ge_u (local.get $j) (local.get $end8)))
            (local.set $at (i32.add (local.get $src) (i32.shl (local.get $j) (i32.const 2))))
            (local.set $a (v128.load (local.get $at)))
            (local.set $b (v128.load offset=16 (local.get $at)))
            (v128.store (i32.add (local.get $high) (i32.shl (local.get $j) (i32.const 1)))
              (i8x16.shuffle 2 3 6 7 10 11 14 15 18 19 22 23 26 27 30 31 (local.get $a) (local.get $b)))
            (v128.store (i32.add (local.get $low) (i32.shl (local.get $j) (i32.const 1)))
              (i8x16.shuffle 0 1 4 5 8 9 12 13 16 17 20 21 24 25 28 29 (local.get $a) (local.get $b)))
            (local.set $j (i32.add (local.get $j) (i32.const 8)))
            (br $steps)))
        (block $restDone
          (loop $rest
            (br_if $restDone (i32.ge_u (local.get $j) (local.get $d)))
            (local.set $x (i32.load (i32.add (local.get $src) (i32.shl (local.get $j) (i32.const 2)))))
            (i32.store16 (i32.add (local.get $high) (i32.shl (local.get $j) (i32.const 1))) (i32.shr_u (local.get $x) (i32.const 16)))
            (i32.store16 (i32.add (local.get $low) (i32.shl (local.get $j) (i32.const 1))) (local.get $x))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $rest)))
        (block $padDone
          (loop $pad
            (br_if $padDone (i32.ge_u (local.get $j) (local.get $stride)))
            (i32.store16 (i32.add (local.get $high) (i32.shl (local.get $j) (i32.const 1))) (i32.const 0))
            (i32.store16 (i32.add (local.get $low) (i32.shl (local.get $j) (i32.const 1))) (i32.const 0))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $pad)))
        (local.set $src (i32.add (local.get $src) (i32.shl (local.get $d) (i32.const 2))))
        (local.set $high (i32.add (local.get $high) (local.get $half)))
        (local.set $low (i32.add (local.get $low) (local.get $half)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each))))

  (global $largest (mut f32) (f32.const -inf))
  (func (export "above")
    (param $hi i32) (param $count i32) (param $t f32) (param $out i32) (result i32)
    (local $r i32) (local $n i32) (local $h f32) (local $max f32)
    (local.set $max (f32.const -inf))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $r) (local.get $count)))
        (local.set $h (f32.load (i32.add (local.get $hi) (i32.shl (local.get $r) (i32.const 2)))))
        (if (f32.gt (local.get $h) (local.get $max)) (then (local.set $max (local.get $h))))
        (if (i32.eqz (f32.le (local.get $h) (local.get $t)))
          (then
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (local.get $r))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each)))
    (global.set $largest (local.get $max))
    (local.get $n))
  (func (export "largest") (result f32) (global.get $largest))
)
