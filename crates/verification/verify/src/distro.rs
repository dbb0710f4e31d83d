//! Which Linux distribution this is (os-release) and the command that installs what Deft
//! needs at run time there, so a doctor's fix is a line a user can paste. The package
//! names per family are a table of what each distribution calls the same thing.

/// A family of distributions that share a package manager and package names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Debian, Ubuntu and their derivatives (apt-get).
    Debian,
    /// Fedora, RHEL, CentOS Stream, Rocky, Alma (dnf).
    Fedora,
    /// Arch, Manjaro, EndeavourOS (pacman).
    Arch,
    /// openSUSE and SLES (zypper).
    Suse,
    /// Alpine (apk).
    Alpine,
    /// Anything else, or no os-release.
    Unknown,
}

/// What Deft may need installed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// The AT-SPI accessibility bus (at-spi-bus-launcher).
    AccessibilityBus,
    /// A headless X server.
    Xvfb,
}

/// This machine's distribution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distro {
    /// `PRETTY_NAME` (or `NAME`, or "this system").
    pub name: String,
    /// Its family.
    pub family: Family,
}

impl Distro {
    /// Read from `/etc/os-release`, then `/usr/lib/os-release`.
    pub fn here() -> Distro {
        ["/etc/os-release", "/usr/lib/os-release"]
            .iter()
            .find_map(|p| std::fs::read_to_string(p).ok())
            .map_or(Distro { name: "this system".into(), family: Family::Unknown }, |t| Distro::parse(&t))
    }

    /// From the text of an os-release file.
    pub fn parse(text: &str) -> Distro {
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
                .map(|v| v.trim().trim_matches('"').trim_matches('\'').to_lowercase())
                .unwrap_or_default()
        };
        let raw = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
                .map(|v| v.trim().trim_matches('"').to_string())
        };
        let id = field("ID");
        let like = field("ID_LIKE");
        let is = |names: &[&str]| {
            names
                .iter()
                .any(|n| id == *n || id.starts_with(&format!("{n}-")) || like.split_whitespace().any(|l| l == *n))
        };
        let family = if is(&["debian", "ubuntu"]) {
            Family::Debian
        } else if is(&["fedora", "rhel", "centos", "rocky", "almalinux"]) {
            Family::Fedora
        } else if is(&["arch", "manjaro", "endeavouros"]) {
            Family::Arch
        } else if is(&["suse", "opensuse", "sles"]) || id.starts_with("opensuse") {
            Family::Suse
        } else if is(&["alpine"]) {
            Family::Alpine
        } else {
            Family::Unknown
        };
        let name = raw("PRETTY_NAME").or_else(|| raw("NAME")).unwrap_or_else(|| "this system".into());
        Distro { name, family }
    }

    /// The command that installs `need` here, e.g. `sudo apt-get install at-spi2-core`;
    /// on an unknown system, the package's name with the commands of the common families.
    pub fn install(&self, need: Need) -> String {
        let package = |family: Family| match (need, family) {
            (Need::AccessibilityBus, _) => "at-spi2-core",
            (Need::Xvfb, Family::Fedora | Family::Suse) => "xorg-x11-server-Xvfb",
            (Need::Xvfb, Family::Arch) => "xorg-server-xvfb",
            (Need::Xvfb, _) => "xvfb",
        };
        let command = |family: Family| match family {
            Family::Debian => format!("sudo apt-get install {}", package(family)),
            Family::Fedora => format!("sudo dnf install {}", package(family)),
            Family::Arch => format!("sudo pacman -S {}", package(family)),
            Family::Suse => format!("sudo zypper install {}", package(family)),
            Family::Alpine => format!("sudo apk add {}", package(family)),
            Family::Unknown => String::new(),
        };
        match self.family {
            Family::Unknown => format!(
                "install {} with your package manager (Debian/Ubuntu: `{}`; Fedora: `{}`; Arch: `{}`)",
                package(Family::Unknown),
                command(Family::Debian),
                command(Family::Fedora),
                command(Family::Arch)
            ),
            family => format!("`{}`", command(family)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_is_told_by_its_os_release_and_gets_its_own_command() {
        let cases = [
            (
                "ID=debian\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"",
                Family::Debian,
                "`sudo apt-get install xvfb`",
            ),
            ("ID=ubuntu\nID_LIKE=debian\n", Family::Debian, "`sudo apt-get install xvfb`"),
            ("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", Family::Debian, "`sudo apt-get install xvfb`"),
            ("ID=fedora\n", Family::Fedora, "`sudo dnf install xorg-x11-server-Xvfb`"),
            (
                "ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n",
                Family::Fedora,
                "`sudo dnf install xorg-x11-server-Xvfb`",
            ),
            ("ID=arch\n", Family::Arch, "`sudo pacman -S xorg-server-xvfb`"),
            ("ID=manjaro\nID_LIKE=arch\n", Family::Arch, "`sudo pacman -S xorg-server-xvfb`"),
            (
                "ID=\"opensuse-tumbleweed\"\nID_LIKE=\"opensuse suse\"\n",
                Family::Suse,
                "`sudo zypper install xorg-x11-server-Xvfb`",
            ),
            ("ID=alpine\n", Family::Alpine, "`sudo apk add xvfb`"),
        ];
        for (text, family, xvfb) in cases {
            let d = Distro::parse(text);
            assert_eq!(d.family, family, "{text}");
            assert_eq!(d.install(Need::Xvfb), xvfb, "{text}");
            assert!(d.install(Need::AccessibilityBus).contains("at-spi2-core"), "{text}");
        }
        assert_eq!(
            Distro::parse("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian").name,
            "Debian GNU/Linux 12 (bookworm)"
        );
    }

    #[test]
    fn an_unknown_system_gets_the_package_and_the_common_commands() {
        for text in ["", "ID=nixos\n", "garbage without equals\n"] {
            let d = Distro::parse(text);
            assert_eq!(d.family, Family::Unknown);
            let fix = d.install(Need::AccessibilityBus);
            assert!(fix.starts_with("install at-spi2-core with your package manager"), "{fix}");
            assert!(
                fix.contains("sudo apt-get install at-spi2-core") && fix.contains("sudo dnf install at-spi2-core"),
                "{fix}"
            );
        }
    }
}
