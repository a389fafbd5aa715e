;; Lower and upper bounds on the f32 dot product of one query with every row,
;; from int8 copies of the rows (see quantized-rows.ts for the layout and the
;; proof of the bounds). A row is `stride` int8 values (a multiple of 16,
;; zero-padded) followed by 16 bytes of f32 metadata: its scale, an upper
;; bound on its norm and on its quantisation residual's norm; rows follow each
;; other every stride + 16 bytes. The query is `stride` int16 values (its int8
;; codes, widened once so each step is one i32x4.dot_i16x8_s). The integer
;; dot product is exact in i32 (|code| ≤ 127, so it needs stride ≤ 133,000).
;; Per row it stores
;;   approx = f32(dot) · scale · $sy,   eps = norm · $alpha + resid · $beta + $eta,
;;   lo[r] = approx − eps,   hi[r] = approx + eps.
;; Compiled by scripts/build-wasm.ts into src/search/simd/dot-i8-wasm.ts; edit
;; this file, then run `npm run build:wasm`.
(module
  (import "env" "memory" (memory 1))
  (func (export "bounds")
    (param $mat i32) (param $q i32) (param $lo i32) (param $hi i32) (param $rows i32) (param $stride i32)
    (param $sy f32) (param $alpha f32) (param $beta f32) (param $eta f32)
    (local $r i32) (local $j i32) (local $row i32) (local $meta i32) (local $out i32)
    (local $a v128) (local $b v128) (local $approx f32) (local $eps f32)
    (local.set $row (local.get $mat))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $a (v128.const i32x4 0 0 0 0))
        (local.set $b (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $rowDone
          (loop $cols
            (br_if $rowDone (i32.ge_u (local.get $j) (local.get $stride)))
            (local.set $a
              (i32x4.add (local.get $a)
                (i32x4.dot_i16x8_s
                  (v128.load8x8_s (i32.add (local.get $row) (local.get $j)))
                  (v128.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1)))))))
            (local.set $b
              (i32x4.add (local.get $b)
                (i32x4.dot_i16x8_s
                  (v128.load8x8_s offset=8 (i32.add (local.get $row) (local.get $j)))
                  (v128.load offset=16 (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1)))))))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (br $cols)))
        (local.set $a (i32x4.add (local.get $a) (local.get $b)))
        (local.set $meta (i32.add (local.get $row) (local.get $stride)))
        (local.set $approx
          (f32.mul
            (f32.mul
              (f32.convert_i32_s
                (i32.add
                  (i32.add (i32x4.extract_lane 0 (local.get $a)) (i32x4.extract_lane 1 (local.get $a)))
                  (i32.add (i32x4.extract_lane 2 (local.get $a)) (i32x4.extract_lane 3 (local.get $a)))))
              (f32.load (local.get $meta)))
            (local.get $sy)))
        (local.set $eps
          (f32.add
            (f32.add
              (f32.mul (f32.load offset=4 (local.get $meta)) (local.get $alpha))
              (f32.mul (f32.load offset=8 (local.get $meta)) (local.get $beta)))
            (local.get $eta)))
        (local.set $out (i32.shl (local.get $r) (i32.const 2)))
        (f32.store (i32.add (local.get $lo) (local.get $out)) (f32.sub (local.get $approx) (local.get $eps)))
        (f32.store (i32.add (local.get $hi) (local.get $out)) (f32.add (local.get $approx) (local.get $eps)))
        (local.set $row (i32.add (local.get $meta) (i32.const 16)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rows))))
)
