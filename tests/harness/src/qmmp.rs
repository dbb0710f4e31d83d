//! qmmp, the corpus's Qt app with custom widgets: its profile (the simple Qt UI, no sound
//! device, two generated tones to play) and its own account of what it is doing, asked
//! from its command line (`qmmp --status`), which talks to the running player: the ground
//! truth its tests are judged by.

use std::path::Path;
use std::time::Duration;

use crate::Desktop;
use crate::apps::RunningApp;

/// The tracks qmmp is started with, in its profile.
pub const TRACKS: [&str; 2] = ["one.wav", "two.wav"];

/// Settings and tracks written into a fresh profile (qmmp's `$HOME`).
pub(crate) fn prepare(profile: &Path) -> std::io::Result<()> {
    // Its simple Qt UI (the default is a skin drawn whole, which accessibility sees as
    // unnamed fillers) and no sound device: it plays to nothing, in real time.
    std::fs::create_dir_all(profile.join(".qmmp"))?;
    std::fs::write(profile.join(".qmmp/qmmprc"), "[Ui]\ncurrent_plugin=qsui\n\n[Output]\ncurrent_plugin=null\n")?;
    for (track, seconds) in TRACKS.iter().zip([30, 20]) {
        std::fs::write(profile.join(track), tone_wav(seconds))?;
    }
    Ok(())
}

/// What the running qmmp answers to one of its command-line questions (`--status`,
/// `--volume-status`, `--nowplaying %f`), trimmed; `None` when it did not answer in 10 s.
pub fn ask(desktop: &Desktop, qmmp: &RunningApp, question: &[&str]) -> Option<String> {
    let mut cmd = desktop.command("timeout");
    cmd.arg("10").arg(qmmp.app().program()).args(question).env("HOME", qmmp.profile());
    cmd.envs(qmmp.app().env());
    let out = cmd.stdin(std::process::Stdio::null()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Ask until `ok` holds for the answer (the player takes a moment to act on a command), up
/// to 5 s; the last answer either way.
pub fn ask_until(desktop: &Desktop, qmmp: &RunningApp, question: &[&str], ok: impl Fn(&str) -> bool) -> String {
    let until = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let answer = ask(desktop, qmmp, question).unwrap_or_default();
        if ok(&answer) || std::time::Instant::now() > until {
            return answer;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A 440 Hz tone of `seconds`, as a WAV file (8 kHz, mono, 16 bit).
fn tone_wav(seconds: u32) -> Vec<u8> {
    const RATE: u32 = 8000;
    let samples = RATE * seconds;
    let mut wav = Vec::with_capacity(44 + 2 * samples as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + 2 * samples).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&RATE.to_le_bytes());
    wav.extend_from_slice(&(2 * RATE).to_le_bytes());
    wav.extend_from_slice(&2u16.to_le_bytes());
    wav.extend_from_slice(&16u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(2 * samples).to_le_bytes());
    for i in 0..samples {
        let t = f64::from(i) / f64::from(RATE);
        let v = (8000.0 * (2.0 * std::f64::consts::PI * 440.0 * t).sin()) as i16;
        wav.extend_from_slice(&v.to_le_bytes());
    }
    wav
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tone_is_a_wav_of_its_length() {
        let wav = super::tone_wav(2);
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        assert_eq!(wav.len(), 44 + 2 * 8000 * 2);
        assert_eq!(u32::from_le_bytes(wav[4..8].try_into().unwrap()) as usize, wav.len() - 8);
    }
}
