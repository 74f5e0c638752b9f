;; One output row of a bilinear resize (half-pixel centres, OpenCV INTER_LINEAR) into three
;; float planes, four output pixels at a time with 128-bit SIMD. vision/bilinear.ts lays out the
;; memory and calls it; scripts/assemble-wasm.ts assembles this file into vision/bilinear-wasm.ts.
;; One function body: V8 (Node 20) does not inline WebAssembly calls, and helper functions made
;; the loop several times slower.
(module
  (memory (export "memory") 1)

;; A run of $runLength output rows blending consecutive source rows — output row j from source
  ;; rows j and j + 1 — so that each source row's horizontal blend is computed once however many
  ;; output rows read it (a downscale by less than 2 gives runs of several rows). For x < $count
  ;; (a multiple of 4): the pixel at byte offsets[x] of each source row and its right neighbour,
  ;; blended by weights[x] across; output row j of channel c (0–2: R, G, B) is upper × verticals[6j + 2c]
  ;; + lower × verticals[6j + 2c + 1] + shifts[c], stored as f32 at $red / $green / $blue + j × $rowBytes + 4x:
  ;; each channel its own scale (in its vertical weights) and shift. $sourceRows holds the runLength + 1 row
  ;; addresses (i32), offsets are i32, weights, verticals and shifts f64; every pixel has a right neighbour,
  ;; and 8 bytes from each offset are readable.
  ;;
  ;; The sums are in f64 and rounded to f32 once, as the scalar JavaScript this replaced did: the
  ;; same floats to the last bit. In f32, a third of the values came out one step apart, enough for
  ;; the int8 models to quantize some of them the other way (AP moved by 0.5 on coco-val122).
  (func (export "blendRows")
        (param $sourceRows i32) (param $runLength i32) (param $verticals i32)
        (param $count i32) (param $offsets i32) (param $weights i32)
        (param $red i32) (param $green i32) (param $blue i32) (param $rowBytes i32) (param $shifts i32)
    (local $x i32) (local $channel i32) (local $j i32) (local $row i32) (local $plane i32)
    (local $o0 i32) (local $o1 i32) (local $o2 i32) (local $o3 i32)
    (local $fx01 v128) (local $fx23 v128) (local $pixels v128) (local $left v128)
    (local $leftMask v128) (local $rightMask v128)
    (local $blend01 v128) (local $blend23 v128) (local $above01 v128) (local $above23 v128)
    (local $upperWeight v128) (local $lowerWeight v128) (local $offsetX2 v128) (local $channelVerticals i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $x) (local.get $count)))
        (local.set $o0 (i32.load offset=0 (i32.add (local.get $offsets) (i32.shl (local.get $x) (i32.const 2)))))
        (local.set $o1 (i32.load offset=4 (i32.add (local.get $offsets) (i32.shl (local.get $x) (i32.const 2)))))
        (local.set $o2 (i32.load offset=8 (i32.add (local.get $offsets) (i32.shl (local.get $x) (i32.const 2)))))
        (local.set $o3 (i32.load offset=12 (i32.add (local.get $offsets) (i32.shl (local.get $x) (i32.const 2)))))
        (local.set $fx01 (v128.load offset=0 (i32.add (local.get $weights) (i32.shl (local.get $x) (i32.const 3)))))
        (local.set $fx23 (v128.load offset=16 (i32.add (local.get $weights) (i32.shl (local.get $x) (i32.const 3)))))

        (local.set $channel (i32.const 0))
        (loop $channels
          ;; Swizzle masks picking this channel's byte of two pixels (bytes c and 8 + c; the right
          ;; neighbours' 3 further) into i32 lanes 0 and 1; indices ≥ 16 give zeros.
          (local.set $leftMask (i8x16.add (v128.const i8x16 0 128 128 128 8 128 128 128 128 128 128 128 128 128 128 128)
                                          (i8x16.splat (local.get $channel))))
          (local.set $rightMask (i8x16.add (local.get $leftMask) (i8x16.splat (i32.const 3))))
          (local.set $plane
            (i32.add (i32.shl (local.get $x) (i32.const 2))
              (select (local.get $red) (select (local.get $green) (local.get $blue) (i32.eq (local.get $channel) (i32.const 1)))
                      (i32.eqz (local.get $channel)))))
          ;; This channel's shift, and its first pair of vertical weights (a run row's pairs are 48 bytes apart).
          (local.set $offsetX2 (f64x2.splat (f64.load (i32.add (local.get $shifts) (i32.shl (local.get $channel) (i32.const 3))))))
          (local.set $channelVerticals (i32.add (local.get $verticals) (i32.shl (local.get $channel) (i32.const 4))))

          (local.set $j (i32.const 0))
          (loop $rows
            ;; This source row across: left + (right − left) × fx, pixels 0–1 and 2–3. 8 bytes at
            ;; each offset, two pixels a vector: R G B of the pixel, R G B of its right neighbour.
            ;; The signed conversion: the values are 0–255, and x86 has no unsigned one.
            (local.set $row (i32.load (i32.add (local.get $sourceRows) (i32.shl (local.get $j) (i32.const 2)))))
            (local.set $pixels (v128.load64_lane 1 (i32.add (local.get $row) (local.get $o1))
                                 (v128.load64_zero (i32.add (local.get $row) (local.get $o0)))))
            (local.set $left (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $pixels) (local.get $leftMask))))
            (local.set $blend01 (f64x2.add (local.get $left) (f64x2.mul (local.get $fx01)
              (f64x2.sub (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $pixels) (local.get $rightMask))) (local.get $left)))))
            (local.set $pixels (v128.load64_lane 1 (i32.add (local.get $row) (local.get $o3))
                                 (v128.load64_zero (i32.add (local.get $row) (local.get $o2)))))
            (local.set $left (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $pixels) (local.get $leftMask))))
            (local.set $blend23 (f64x2.add (local.get $left) (f64x2.mul (local.get $fx23)
              (f64x2.sub (f64x2.convert_low_i32x4_s (i8x16.swizzle (local.get $pixels) (local.get $rightMask))) (local.get $left)))))

            ;; Output row j − 1, from the row above and this one: rounded to f32, four side by side.
            (if (local.get $j)
              (then
                (local.set $upperWeight (f64x2.splat (f64.load offset=0
                  (i32.add (local.get $channelVerticals) (i32.mul (i32.sub (local.get $j) (i32.const 1)) (i32.const 48))))))
                (local.set $lowerWeight (f64x2.splat (f64.load offset=8
                  (i32.add (local.get $channelVerticals) (i32.mul (i32.sub (local.get $j) (i32.const 1)) (i32.const 48))))))
                (v128.store
                  (i32.add (local.get $plane) (i32.mul (i32.sub (local.get $j) (i32.const 1)) (local.get $rowBytes)))
                  (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
                    (f32x4.demote_f64x2_zero
                      (f64x2.add (f64x2.add (f64x2.mul (local.get $above01) (local.get $upperWeight))
                                            (f64x2.mul (local.get $blend01) (local.get $lowerWeight)))
                                 (local.get $offsetX2)))
                    (f32x4.demote_f64x2_zero
                      (f64x2.add (f64x2.add (f64x2.mul (local.get $above23) (local.get $upperWeight))
                                            (f64x2.mul (local.get $blend23) (local.get $lowerWeight)))
                                 (local.get $offsetX2)))))))
            (local.set $above01 (local.get $blend01))
            (local.set $above23 (local.get $blend23))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br_if $rows (i32.le_u (local.get $j) (local.get $runLength))))

          (local.set $channel (i32.add (local.get $channel) (i32.const 1)))
          (br_if $channels (i32.lt_u (local.get $channel) (i32.const 3))))

        (local.set $x (i32.add (local.get $x) (i32.const 4)))
        (br $next))))
)
