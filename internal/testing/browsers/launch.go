package browsers

import (
	"os"
	"path/filepath"
	"strings"
)

// launch is how to run one engine: its arguments and the environment it adds.
type launch struct {
	args []string
	env  []string
}

// launchFor returns the command line and environment for the engine at path
// opening url, with its profile and HOME under dir (a fresh temporary
// directory), and writes any files the profile needs.
func launchFor(name, dir, url string) (launch, error) {
	home := filepath.Join(dir, "home")
	profile := filepath.Join(dir, "profile")
	for _, d := range []string{home, profile, filepath.Join(dir, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return launch{}, err
		}
	}
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local/state"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"NO_AT_BRIDGE=1",
	}
	switch name {
	case "chromium":
		args := []string{
			"--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--disable-default-apps", "--disable-extensions", "--disable-breakpad", "--disable-crash-reporter",
			"--disable-background-timer-throttling", "--disable-renderer-backgrounding",
			"--disable-backgrounding-occluded-windows", "--disable-hang-monitor",
			"--disable-features=Translate,MediaRouter,OptimizationHints",
			"--password-store=basic", "--use-mock-keychain", "--metrics-recording-only",
			"--user-data-dir=" + profile,
		}
		if os.Geteuid() == 0 {
			args = append(args, "--no-sandbox") // Chromium refuses to sandbox as root
		}
		return launch{args: append(args, url), env: env}, nil
	case "firefox":
		if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(firefoxPrefs), 0o600); err != nil {
			return launch{}, err
		}
		env = append(env, "MOZ_CRASHREPORTER_DISABLE=1", "MOZ_DISABLE_AUTO_SAFE_MODE=1", "MOZ_HEADLESS=1")
		return launch{args: []string{"--headless", "--no-remote", "--new-instance", "--profile", profile, url}, env: env}, nil
	case "webkit":
		env = append(env,
			"JSC_useSharedArrayBuffer=1", // else WebKitGTK hides SharedArrayBuffer even when isolated
			// No session bus: GIO must not autolaunch a dbus-daemon.
			"DBUS_SESSION_BUS_ADDRESS=disabled:",
			"GTK_A11Y=none", "GSETTINGS_BACKEND=memory", "GIO_USE_VFS=local",
			"LIBGL_ALWAYS_SOFTWARE=1", "WEBKIT_DISABLE_COMPOSITING_MODE=1",
		)
		args := []string{
			"--private", // ephemeral website data: nothing persists between runs
			"--enable-developer-extras=false",
			url,
		}
		return launch{args: args, env: env}, nil
	}
	_, err := lookup(name)
	return launch{}, err
}

// baseEnv is the test process's environment without what launchFor sets and
// without anything that would point an engine at the user's session.
func baseEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", k == "DISPLAY", k == "WAYLAND_DISPLAY", k == "DBUS_SESSION_BUS_ADDRESS",
			strings.HasPrefix(k, "XDG_"), k == tagVar:
			continue
		}
		out = append(out, kv)
	}
	return out
}

// firefoxPrefs is the user.js of every Firefox profile: no first-run or
// update pages, telemetry, network chatter, default-browser check or
// slow-script dialogs.
const firefoxPrefs = `user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.startup.page", 0);
user_pref("browser.startup.homepage", "about:blank");
user_pref("startup.homepage_welcome_url", "");
user_pref("startup.homepage_welcome_url.additional", "");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("browser.newtabpage.enabled", false);
user_pref("browser.tabs.warnOnClose", false);
user_pref("browser.warnOnQuit", false);
user_pref("browser.sessionstore.resume_from_crash", false);
user_pref("browser.sessionstore.max_resumed_crashes", -1);
user_pref("toolkit.startup.max_resumed_crashes", -1);
user_pref("browser.pagethumbnails.capturing_disabled", true);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("browser.safebrowsing.downloads.enabled", false);
user_pref("browser.safebrowsing.blockedURIs.enabled", false);
user_pref("browser.safebrowsing.update.enabled", false);
user_pref("browser.search.update", false);
user_pref("browser.region.network.url", "");
user_pref("browser.region.update.enabled", false);
user_pref("browser.discovery.enabled", false);
user_pref("browser.ping-centre.telemetry", false);
user_pref("browser.newtabpage.activity-stream.feeds.telemetry", false);
user_pref("browser.newtabpage.activity-stream.telemetry", false);
user_pref("app.update.enabled", false);
user_pref("app.update.auto", false);
user_pref("app.update.disabledForTesting", true);
user_pref("app.normandy.enabled", false);
user_pref("app.shield.optoutstudies.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("extensions.getAddons.cache.enabled", false);
user_pref("extensions.blocklist.enabled", false);
user_pref("extensions.systemAddon.update.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("toolkit.telemetry.enabled", false);
user_pref("toolkit.telemetry.unified", false);
user_pref("toolkit.telemetry.server", "");
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("services.settings.server", "data:,#remote-settings-dummy/v1");
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("network.dns.disablePrefetch", true);
user_pref("network.prefetch-next", false);
user_pref("network.http.speculative-parallel-limit", 0);
user_pref("network.proxy.type", 0);
user_pref("dom.max_script_run_time", 0);
user_pref("dom.max_chrome_script_run_time", 0);
user_pref("dom.ipc.reportProcessHangs", false);
user_pref("dom.disable_open_during_load", false);
user_pref("browser.cache.disk.enable", false);
user_pref("security.notification_enable_delay", 0);
user_pref("ui.systemUsesDarkTheme", 0);
`
