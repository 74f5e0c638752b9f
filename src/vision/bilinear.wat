;; One output row of a bilinear resize (half-pixel centres, OpenCV INTER_LINEAR) into three
;; float planes, four output pixels at a time with 128-bit SIMD. vision/bilinear.ts lays out the
;; memory and calls it; scripts/assemble-wasm.ts assembles this file into vision/bilinear-wasm.ts.
;; One function body: V8 (Node 20) does not inline WebAssembly calls, and helper functions made
;; the loop several times slower.
(module
  (memory (export "memory") 1)

  ;; For x < $count (a multiple of 4): the pixel at byte offsets[x] of the rows at $upper and
  ;; $lower and its right neighbour, blended by weights[x] across and $wTop / $wBottom down, plus
  ;; $offset, stored as f32 at $red / $green / $blue + 4x. Offsets are i32 and weights f64, one
  ;; per column; every pixel has a right neighbour, and 8 bytes from each offset are readable.
  ;;
  ;; The sums are in f64 and rounded to f32 once, as the scalar JavaScript this replaced did: the
  ;; same floats to the last bit. In f32, a third of the values came out one step apart, enough for
  ;; the int8 models to quantize some of them the other way (AP moved by 0.5 on coco-val122).
  (func (export "blendRow")
        (param $upper i32) (param $lower i32) (param $count i32) (param $offsets i32) (param $weights i32)
        (param $red i32) (param $green i32) (param $blue i32)
        (param $wTop f64) (param $wBottom f64) (param $offset f64)
    (local $x i32) (local $channel i32) (local $o0 i32) (local $o1 i32) (local $o2 i32) (local $o3 i32)
    (local $fx01 v128) (local $fx23 v128)
    (local $upper01 v128) (local $upper23 v128) (local $lower01 v128) (local $lower23 v128)
    (local $leftMask v128) (local $rightMask v128) (local $left v128) (local $top v128) (local $bottom v128)
    (local $sum01 v128) (local $sum23 v128) (local $topX2 v128) (local $bottomX2 v128) (local $offsetX2 v128)
    (local.set $topX2 (f64x2.splat (local.get $wTop)))
    (local.set $bottomX2 (f64x2.splat (local.get $wBottom)))
    (local.set $offsetX2 (f64x2.splat (local.get $offset)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $x) (local.get $count)))
        (local.set $o0 (i32.load offset=0 (i32.add (local.get $offsets) (i32.shl (local.get $x) (i32.const 2)))))
        (local.set $o1 (i32.load offset=4 (i32.add (local.get $offsets) (i32.shl (local.get $x) (i32.const 2)))))
        (local.set $o2 (i32.load offset=8 (i32.add (local.get $offsets) (i32.shl (local.get $x) (i32.const 2)))))
        (local.set $o3 (i32.load offset=12 (i32.add (local.get $offsets) (i32.shl (local.get $x) (i32.const 2)))))
        (local.set $fx01 (v128.load offset=0 (i32.add (local.get $weights) (i32.shl (local.get $x) (i32.const 3)))))
        (local.set $fx23 (v128.load offset=16 (i32.add (local.get $weights) (i32.shl (local.get $x) (i32.const 3)))))
        ;; 8 bytes at each offset, two pixels a vector: R G B of the pixel, R G B of its right
        ;; neighbour, 2 not used.
        (local.set $upper01 (v128.load64_lane 1 (i32.add (local.get $upper) (local.get $o1))
                              (v128.load64_zero (i32.add (local.get $upper) (local.get $o0)))))
        (local.set $upper23 (v128.load64_lane 1 (i32.add (local.get $upper) (local.get $o3))
                              (v128.load64_zero (i32.add (local.get $upper) (local.get $o2)))))
        (local.set $lower01 (v128.load64_lane 1 (i32.add (local.get $lower) (local.get $o1))
                              (v128.load64_zero (i32.add (local.get $lower) (local.get $o0)))))
        (local.set $lower23 (v128.load64_lane 1 (i32.add (local.get $lower) (local.get $o3))
                              (v128.load64_zero (i32.add (local.get $lower) (local.get $o2)))))

        (local.set $channel (i32.const 0))
        (loop $channels
          ;; Swizzle masks picking this channel's byte of the two pixels (bytes c and 8 + c; the
          ;; right neighbours' 3 further) into i32 lanes 0 and 1; indices ≥ 16 give zeros.
          (local.set $leftMask (i8x16.add (v128.const i8x16 0 128 128 128 8 128 128 128 128 128 128 128 128 128 128 128)
                                          (i8x16.splat (local.get $channel))))
          (local.set $rightMask (i8x16.add (local.get $leftMask) (i8x16.splat (i32.const 3))))

          ;; Pixels 0 and 1: (left + (right − left) × fx) of each row, × $wTop and $wBottom, + $offset.
          ;; The signed conversion: the values are 0–255, and x86 has no unsigned one (V8 emulates
          ;; it with several instructions).
          (local.set $left (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $upper01) (local.get $leftMask))))
          (local.set $top (f64x2.add (local.get $left) (f64x2.mul (local.get $fx01)
            (f64x2.sub (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $upper01) (local.get $rightMask))) (local.get $left)))))
          (local.set $left (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $lower01) (local.get $leftMask))))
          (local.set $bottom (f64x2.add (local.get $left) (f64x2.mul (local.get $fx01)
            (f64x2.sub (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $lower01) (local.get $rightMask))) (local.get $left)))))
          (local.set $sum01 (f64x2.add (f64x2.add (f64x2.mul (local.get $top) (local.get $topX2))
                                                  (f64x2.mul (local.get $bottom) (local.get $bottomX2)))
                                       (local.get $offsetX2)))
          ;; Pixels 2 and 3, the same.
          (local.set $left (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $upper23) (local.get $leftMask))))
          (local.set $top (f64x2.add (local.get $left) (f64x2.mul (local.get $fx23)
            (f64x2.sub (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $upper23) (local.get $rightMask))) (local.get $left)))))
          (local.set $left (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $lower23) (local.get $leftMask))))
          (local.set $bottom (f64x2.add (local.get $left) (f64x2.mul (local.get $fx23)
            (f64x2.sub (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $lower23) (local.get $rightMask))) (local.get $left)))))
          (local.set $sum23 (f64x2.add (f64x2.add (f64x2.mul (local.get $top) (local.get $topX2))
                                                  (f64x2.mul (local.get $bottom) (local.get $bottomX2)))
                                       (local.get $offsetX2)))

          ;; Rounded to f32, the four side by side, into this channel's plane.
          (v128.store
            (i32.add (i32.shl (local.get $x) (i32.const 2))
              (select (local.get $red) (select (local.get $green) (local.get $blue) (i32.eq (local.get $channel) (i32.const 1)))
                      (i32.eqz (local.get $channel))))
            (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
              (f32x4.demote_f64x2_zero (local.get $sum01)) (f32x4.demote_f64x2_zero (local.get $sum23))))
          (local.set $channel (i32.add (local.get $channel) (i32.const 1)))
          (br_if $channels (i32.lt_u (local.get $channel) (i32.const 3))))

        (local.set $x (i32.add (local.get $x) (i32.const 4)))
        (br $next))))
)
