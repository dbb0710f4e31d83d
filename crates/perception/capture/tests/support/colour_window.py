"""A GTK window of known pixels for deft-capture's tests.

Usage: colour_window.py TITLE WIDTH HEIGHT RRGGBB|stripes
Prints the window's X id once it has been drawn, then runs until killed.
`stripes` paints column x with the colour (x % 256, 7x % 256, 13x % 256).
"""

import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("GdkX11", "3.0")
from gi.repository import GdkX11, GLib, Gtk  # noqa: E402,F401  (GdkX11 gives windows get_xid)

title, width, height, paint = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

window = Gtk.Window(title=title)
window.set_resizable(False)
area = Gtk.DrawingArea()
area.set_size_request(width, height)
window.add(area)
reported = False


def draw(_widget, cr):
    global reported
    if paint == "stripes":
        for x in range(width):
            cr.set_source_rgb((x % 256) / 255, (7 * x % 256) / 255, (13 * x % 256) / 255)
            cr.rectangle(x, 0, 1, height)
            cr.fill()
    else:
        r, g, b = (int(paint[i : i + 2], 16) / 255 for i in (0, 2, 4))
        cr.set_source_rgb(r, g, b)
        cr.paint()
    if not reported:
        reported = True
        GLib.idle_add(lambda: print(window.get_window().get_xid(), flush=True) and False)
    return False


area.connect("draw", draw)
window.connect("destroy", Gtk.main_quit)
window.show_all()
Gtk.main()
