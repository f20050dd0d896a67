#!/usr/bin/env python3
# bdf_to_header.py: writes font_6x13.h from a fixed-cell BDF font. Made with
#   pcf2bdf -o 6x13.bdf /usr/share/fonts/X11/misc/6x13.pcf.gz      (Debian xfonts-base, pcf2bdf)
#   tools/eval/bdf_to_header.py 6x13.bdf tools/eval/font_6x13.h
import sys
def main(bdf, out, codes):
    cell_w, cell_h, cell_x, cell_y = None, None, None, None
    glyphs = {}
    cur = None
    lines = open(bdf, encoding='latin-1').read().splitlines()
    i = 0
    while i < len(lines):
        t = lines[i].split()
        if t and t[0] == 'FONTBOUNDINGBOX':
            cell_w, cell_h, cell_x, cell_y = map(int, t[1:5])
        elif t and t[0] == 'ENCODING':
            cur = {'code': int(t[1])}
        elif t and t[0] == 'BBX':
            cur['bbx'] = list(map(int, t[1:5]))
        elif t and t[0] == 'BITMAP':
            w, h, xo, yo = cur['bbx']
            rows = [int(lines[i + 1 + k], 16) for k in range(h)]
            nbytes = (w + 7) // 8
            cell = [0] * cell_h
            top = (cell_h + cell_y) - (h + yo)   # row of the glyph's top in the cell
            for k, r in enumerate(rows):
                bits = 0
                for x in range(w):
                    if r & (1 << (nbytes * 8 - 1 - x)):
                        cx = x + xo - cell_x
                        if 0 <= cx < cell_w:
                            bits |= 1 << (cell_w - 1 - cx)
                if 0 <= top + k < cell_h:
                    cell[top + k] = bits
            glyphs[cur['code']] = cell
            i += h
        i += 1
    with open(out, 'w') as f:
        f.write('// font_6x13.h: the X11 "misc-fixed" 6x13 bitmap font (public domain: "Public domain\n'
                '// font.  Share and enjoy."), ASCII 32-126 plus a few symbols, for the labels of the\n'
                '// evaluation figures. Generated from xfonts-base 6x13.pcf.gz (pcf2bdf, then\n'
                '// tools/eval/bdf_to_header.py, which draws \'.\' and \':\' as plain dots); one byte per\n'
                '// row, bit 5 = leftmost pixel.\n')
        f.write('#pragma once\n\n#include <cstdint>\n\nnamespace cdn::eval {\n\n')
        f.write('constexpr int kFontWidth = %d, kFontHeight = %d;\n\n' % (cell_w, cell_h))
        f.write('struct Glyph {\n  std::uint32_t code;  // Unicode code point\n  std::uint8_t rows[%d];\n};\n\n' % cell_h)
        f.write('constexpr Glyph kFontGlyphs[] = {\n')
        for c in codes:
            if c not in glyphs: sys.exit('missing glyph %d' % c)
            rows = OVERRIDES.get(c, glyphs[c])
            f.write('    {%d, {%s}},\n' % (c, ', '.join('0x%02x' % b for b in rows)))
        f.write('};\n\n}  // namespace cdn::eval\n')
# The font's '.' and ':' are plus-shaped dots that read as '+' and ';' in small
# captions: plain 2x2 dots instead.
OVERRIDES = {0x2e: [0] * 9 + [0x18, 0x18] + [0] * 2, 0x3a: [0] * 4 + [0x18, 0x18] + [0] * 3 + [0x18, 0x18] + [0] * 2}
codes = list(range(32, 127)) + [0xb0, 0xb2, 0xb3, 0xb5, 0xb7, 0xd7, 0x3c3, 0x2013, 0x2248, 0x2264, 0x2265]
main(sys.argv[1], sys.argv[2], codes)
