//! Building an executor on the real desktop: AT-SPI, enigo, X11 window geometry, X11 capture.

use deft_a11y::{AtSpi, AtSpiConfig};
use deft_input::{EnigoConfig, EnigoInput, X11Windows};

use crate::backends::{Backends, ScreenText};
use crate::config::ExecutorConfig;
use crate::error::VerifyError;
use crate::executor::Executor;

impl Executor<AtSpi> {
    /// An executor on the desktop named by `config.display` (input, window geometry and
    /// capture) and by `a11y` (the accessibility bus). Window geometry and capture are
    /// optional signals: when they cannot be connected the executor works without them
    /// (scale 1, no pixel signal); accessibility and input are required.
    pub async fn connect(config: ExecutorConfig, a11y: AtSpiConfig) -> Result<Executor<AtSpi>, VerifyError> {
        Executor::connect_with(config, a11y, None).await
    }

    /// [`Executor::connect`], with a recogniser for text that is on screen but not in the
    /// accessibility tree.
    pub async fn connect_with(
        config: ExecutorConfig,
        a11y: AtSpiConfig,
        ocr: Option<Box<dyn ScreenText>>,
    ) -> Result<Executor<AtSpi>, VerifyError> {
        let display = config.display.clone();
        // GTK 4's windows are placed on the display the input goes to, unless told otherwise.
        let a11y = AtSpiConfig { display: a11y.display.or_else(|| display.clone()), ..a11y };
        let a11y = AtSpi::connect(a11y)
            .await
            .map_err(|e| VerifyError::Backend { backend: "accessibility", detail: e.to_string() })?;
        let input = EnigoInput::connect(&EnigoConfig { display: display.clone(), ..EnigoConfig::default() })
            .map_err(|e| VerifyError::Backend { backend: "input", detail: e.to_string() })?;
        let windows = X11Windows::connect(display.as_deref()).ok();
        let capture = deft_capture::open_default(display.as_deref()).ok();
        let backends =
            Backends { a11y, input: Box::new(input), windows: windows.map(|w| Box::new(w) as _), capture, ocr };
        Executor::new(backends, config)
    }
}
