/**
 * Advance widths of DejaVu Sans Bold (the tags' font) for the printable ASCII characters U+0020–U+007E,
 * in thousandths of an em, read from the font's hmtx table (fonts-dejavu-core, DejaVuSans-Bold.ttf).
 */
const ASCII_ADVANCES = [
  348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580,
  1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500,
  500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
];

/** Any other character (accented, CJK, from a model's own labels or a person's name): as wide as the widest that commonly occur. */
const OTHER_ADVANCE = 1103;

/** How wide `text` is in the tags' bold font, in ems: a tag sized by it holds its text whatever the letters (plates are capitals and digits). */
export function tagTextWidth(text: string): number {
  let thousandths = 0;
  for (const character of text) {
    const code = character.codePointAt(0)!;
    thousandths += code >= 0x20 && code <= 0x7e ? ASCII_ADVANCES[code - 0x20] : OTHER_ADVANCE;
  }
  return thousandths / 1000;
}
