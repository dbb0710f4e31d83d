/* Deft windows: the windows GNOME Shell shows, for Deft, over D-Bus.
 *
 * Wayland tells no client where any window is, and GNOME Shell's own introspection
 * gives sizes without positions (and only to its allow-listed callers). Deft's
 * accessibility reads give each element's place relative to its window; this says
 * where each window is, so a point can be aimed on screen.
 *
 * org.deft.Windows1 at /org/deft/Windows on the session bus:
 *   List() -> s: a JSON array, bottom to top in stacking order, of
 *     {id, pid, title, app_id, frame: [x, y, w, h], buffer: [x, y, w, h],
 *      focused, minimized, workspace_shown, covered}
 *     where `covered` says the Shell's own UI lies over every window (its overview, or
 *     the cover it keeps over them while it starts): a press aimed at a window's place
 *     would land on the Shell instead.
 *   Activate(t id) -> b: raises and focuses that window (as a click on it would, so the
 *     overview closes).
 * GNOME 42 to 44 (the imports-style extension API). */
const { Gio } = imports.gi;
const Main = imports.ui.main;

const IFACE = `<node>
  <interface name="org.deft.Windows1">
    <method name="List"><arg type="s" direction="out" name="windows"/></method>
    <method name="Activate">
      <arg type="t" direction="in" name="id"/>
      <arg type="b" direction="out" name="done"/>
    </method>
  </interface>
</node>`;

function rect(r) {
    return [r.x, r.y, r.width, r.height];
}

class DeftWindows {
    enable() {
        this._impl = Gio.DBusExportedObject.wrapJSObject(IFACE, this);
        this._impl.export(Gio.DBus.session, '/org/deft/Windows');
        this._name = Gio.bus_own_name_on_connection(Gio.DBus.session, 'org.deft.Windows',
            Gio.BusNameOwnerFlags.NONE, null, null);
    }

    disable() {
        this._impl.unexport();
        Gio.bus_unown_name(this._name);
        this._impl = null;
    }

    _windows() {
        return global.get_window_actors().map(a => a.get_meta_window()).filter(w => w !== null);
    }

    List() {
        const focus = global.display.get_focus_window();
        const active = global.workspace_manager.get_active_workspace();
        const covered = Main.overview.visible || Main.layoutManager._startingUp === true;
        const list = this._windows().map(w => ({
            id: w.get_id(),
            pid: w.get_pid(),
            title: w.get_title() || '',
            app_id: w.get_gtk_application_id() || w.get_wm_class() || '',
            frame: rect(w.get_frame_rect()),
            buffer: rect(w.get_buffer_rect()),
            focused: w === focus,
            minimized: w.minimized,
            workspace_shown: w.is_on_all_workspaces() || w.get_workspace() === active,
            covered,
        }));
        return JSON.stringify(list);
    }

    Activate(id) {
        const w = this._windows().find(x => x.get_id() === id);
        if (!w)
            return false;
        // As a click on it in the Shell would: its workspace shown, the overview closed.
        const all = w.is_on_all_workspaces() || w.get_workspace() === null;
        const workspace = all ? global.workspace_manager.get_active_workspace_index() : undefined;
        Main.activateWindow(w, global.get_current_time(), workspace);
        return true;
    }
}

function init() {
    return new DeftWindows();
}
