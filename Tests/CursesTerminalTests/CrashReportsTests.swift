import Testing

@testable import CursesTerminal

@Suite("Crash report settings")
struct CrashReportsTests {
    @Test func noSettingsBecomeQuietAndOnStandardError() {
        #expect(CrashReports.settings(replacing: nil) == "interactive=no,color=no,output-to=stderr")
        #expect(CrashReports.settings(replacing: "") == "interactive=no,color=no,output-to=stderr")
    }

    @Test func theUsersSettingsStayFirstAndOursWin() {
        #expect(
            CrashReports.settings(replacing: "preset=medium,interactive=yes")
                == "preset=medium,interactive=yes,interactive=no,color=no,output-to=stderr")
        #expect(
            CrashReports.settings(replacing: "output-to=stdout")
                == "output-to=stdout,interactive=no,color=no,output-to=stderr")
    }

    @Test func settingsThatAlreadyDoNeedNoRestart() {
        #expect(CrashReports.settings(replacing: "interactive=no,color=no,output-to=stderr") == nil)
        #expect(CrashReports.settings(replacing: "interactive=no,color=no") == nil)  // auto: stderr
        #expect(CrashReports.settings(replacing: "enable=no") == nil)
        #expect(CrashReports.settings(replacing: " enable = off ") == nil)
    }

    @Test func aFileOfTheUsersChoosingIsKept() {
        #expect(
            CrashReports.settings(replacing: "output-to=/tmp/crashes")
                == "output-to=/tmp/crashes,interactive=no,color=no")
        #expect(CrashReports.settings(replacing: "output-to=/tmp/crashes,interactive=no,color=no") == nil)
    }
}
