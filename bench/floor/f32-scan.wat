;; The benchmarks' floor (bench/floor/f32-floor.ts): dot products of one
;; query against every row of a row-major f32 matrix, with 128-bit SIMD
;; (f32x4), two accumulators per row for instruction-level parallelism.
;; `stride` is the row length in floats and must be a multiple of 8 (rows are
;; zero-padded to it). Compiled by scripts/build-wasm.ts into
;; f32-scan-wasm.ts; edit this file, then run `npm run build:wasm`.
(module
  (import "env" "memory" (memory 1))
  (func (export "scores")
    (param $mat i32) (param $q i32) (param $out i32) (param $rows i32) (param $stride i32)
    (local $r i32) (local $j i32) (local $bytes i32) (local $row i32)
    (local $a v128) (local $b v128)
    (local.set $bytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $row (local.get $mat))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $a (v128.const f32x4 0 0 0 0))
        (local.set $b (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (block $rowDone
          (loop $cols
            (br_if $rowDone (i32.ge_u (local.get $j) (local.get $bytes)))
            (local.set $a
              (f32x4.add (local.get $a)
                (f32x4.mul
                  (v128.load (i32.add (local.get $row) (local.get $j)))
                  (v128.load (i32.add (local.get $q) (local.get $j))))))
            (local.set $b
              (f32x4.add (local.get $b)
                (f32x4.mul
                  (v128.load offset=16 (i32.add (local.get $row) (local.get $j)))
                  (v128.load offset=16 (i32.add (local.get $q) (local.get $j))))))
            (local.set $j (i32.add (local.get $j) (i32.const 32)))
            (br $cols)))
        (local.set $a (f32x4.add (local.get $a) (local.get $b)))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
            (f32.add (f32x4.extract_lane 2 (local.get $a)) (f32x4.extract_lane 3 (local.get $a)))))
        (local.set $row (i32.add (local.get $row) (local.get $bytes)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rows))))
)
