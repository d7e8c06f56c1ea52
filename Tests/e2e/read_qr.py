"""Reads a QR code drawn as the console's SVG (dark modules as `M{x} {y}h1v1h-1z` on a white square) with a real
decoder, zxing-cpp, and prints the text it holds. Usage: read_qr.py FILE.svg"""
import re
import sys

import zxingcpp
from PIL import Image

svg = open(sys.argv[1]).read()
size = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1))
scale = 8
image = Image.new("L", (size * scale, size * scale), 255)
for x, y in re.findall(r"M(\d+) (\d+)h1v1h-1z", svg):
    x, y = int(x), int(y)
    for dy in range(scale):
        for dx in range(scale):
            image.putpixel((x * scale + dx, y * scale + dy), 0)
results = zxingcpp.read_barcodes(image)
if not results:
    sys.exit("no QR code found")
print(results[0].text)
