;; One output row of a bilinear resize (half-pixel centres, OpenCV INTER_LINEAR) into three
;; float planes, four output pixels at a time with 128-bit SIMD. vision/bilinear.ts lays out the
;; memory and calls it; scripts/assemble-wasm.ts assembles this file into vision/bilinear-wasm.ts.
;; All in one function body: V8 (Node 20) does not inline WebAssembly calls, and helper functions
;; made the loop 5× slower.
(module
  (memory (export "memory") 1)

  ;; For x < $count (a multiple of 4): the pixel at byte offsets[x] of the rows at $upper and
  ;; $lower and its right neighbour, blended by weights[x] across and $wTop / $wBottom down, plus
  ;; $offset, stored at $red / $green / $blue + 4x. Offsets are i32, weights f32, one per column;
  ;; every pixel must have a right neighbour, and 8 bytes from each offset must be readable.
  (func (export "blendRow")
        (param $upper i32) (param $lower i32) (param $count i32) (param $offsets i32) (param $weights i32)
        (param $red i32) (param $green i32) (param $blue i32)
        (param $wTop f32) (param $wBottom f32) (param $offset f32)
    (local $x i32) (local $at i32) (local $o0 i32) (local $o1 i32) (local $o2 i32) (local $o3 i32)
    (local $row i32) (local $pass i32)
    (local $fx v128) (local $weight v128) (local $offsetX4 v128)
    (local $p01 v128) (local $p23 v128) (local $low v128) (local $high v128) (local $wide v128)
    (local $rl v128) (local $gl v128) (local $bl v128) (local $rr v128) (local $gr v128) (local $br v128)
    (local $r v128) (local $g v128) (local $b v128)
    (local.set $offsetX4 (f32x4.splat (local.get $offset)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $x) (local.get $count)))
        (local.set $at (i32.shl (local.get $x) (i32.const 2)))
        (local.set $o0 (i32.load offset=0 (i32.add (local.get $offsets) (local.get $at))))
        (local.set $o1 (i32.load offset=4 (i32.add (local.get $offsets) (local.get $at))))
        (local.set $o2 (i32.load offset=8 (i32.add (local.get $offsets) (local.get $at))))
        (local.set $o3 (i32.load offset=12 (i32.add (local.get $offsets) (local.get $at))))
        (local.set $fx (v128.load (i32.add (local.get $weights) (local.get $at))))
        (local.set $r (local.get $offsetX4))
        (local.set $g (local.get $offsetX4))
        (local.set $b (local.get $offsetX4))

        ;; Two passes: the upper row times $wTop, then the lower row times $wBottom, added up.
        (local.set $pass (i32.const 0))
        (loop $rows
          (local.set $row (select (local.get $upper) (local.get $lower) (i32.eqz (local.get $pass))))
          (local.set $weight (f32x4.splat (select (local.get $wTop) (local.get $wBottom) (i32.eqz (local.get $pass)))))

          ;; 8 bytes at each offset: R G B of the pixel, R G B of its right neighbour, 2 unused.
          (local.set $p01 (v128.load64_lane 1 (i32.add (local.get $row) (local.get $o1))
                            (v128.load64_zero (i32.add (local.get $row) (local.get $o0)))))
          (local.set $p23 (v128.load64_lane 1 (i32.add (local.get $row) (local.get $o3))
                            (v128.load64_zero (i32.add (local.get $row) (local.get $o2)))))
          ;; Gathered by channel: $low = left R×4 G×4 B×4, right R×4; $high = right G×4 B×4.
          (local.set $low (i8x16.shuffle 0 8 16 24 1 9 17 25 2 10 18 26 3 11 19 27 (local.get $p01) (local.get $p23)))
          (local.set $high (i8x16.shuffle 4 12 20 28 5 13 21 29 4 12 20 28 5 13 21 29 (local.get $p01) (local.get $p23)))
          ;; Widened to 32 bits and converted to floats. The signed conversion: the values are
          ;; 0–255, and x86 has no unsigned one (V8 emulates it with several instructions).
          (local.set $wide (i16x8.extend_low_i8x16_u (local.get $low)))
          (local.set $rl (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $wide))))
          (local.set $gl (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $wide))))
          (local.set $wide (i16x8.extend_high_i8x16_u (local.get $low)))
          (local.set $bl (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $wide))))
          (local.set $rr (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $wide))))
          (local.set $wide (i16x8.extend_low_i8x16_u (local.get $high)))
          (local.set $gr (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $wide))))
          (local.set $br (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $wide))))
          ;; += (left + (right − left) × fx) × weight
          (local.set $r (f32x4.add (local.get $r) (f32x4.mul (local.get $weight)
            (f32x4.add (local.get $rl) (f32x4.mul (f32x4.sub (local.get $rr) (local.get $rl)) (local.get $fx))))))
          (local.set $g (f32x4.add (local.get $g) (f32x4.mul (local.get $weight)
            (f32x4.add (local.get $gl) (f32x4.mul (f32x4.sub (local.get $gr) (local.get $gl)) (local.get $fx))))))
          (local.set $b (f32x4.add (local.get $b) (f32x4.mul (local.get $weight)
            (f32x4.add (local.get $bl) (f32x4.mul (f32x4.sub (local.get $br) (local.get $bl)) (local.get $fx))))))

          (local.set $pass (i32.add (local.get $pass) (i32.const 1)))
          (br_if $rows (i32.lt_u (local.get $pass) (i32.const 2))))

        (v128.store (i32.add (local.get $red) (local.get $at)) (local.get $r))
        (v128.store (i32.add (local.get $green) (local.get $at)) (local.get $g))
        (v128.store (i32.add (local.get $blue) (local.get $at)) (local.get $b))
        (local.set $x (i32.add (local.get $x) (i32.const 4)))
        (br $next))))
)
