import Foundation
import Testing
@testable import StratusHTTP

@Suite struct MultipartFormTests {
    let type = "multipart/form-data; boundary=\"XyZ\""

    @Test func readsFieldsAndFiles() throws {
        let body = Data("--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nabc\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            + Data([0, 13, 10, 45, 45, 255]) + Data("\r\n--XyZ--\r\n".utf8)
        let form = try #require(MultipartForm(body, contentType: type))
        #expect(form.fields.map(\.name) == ["csrf"] && form.fields.map(\.value) == ["abc"])
        #expect(form.file(named: "file")?.data == Data([0, 13, 10, 45, 45, 255]))
        #expect(form.file(named: "file")?.filename == "a.bin")
    }

    @Test func malformedBodiesAreNil() {
        for text in ["", "--XyZ", "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated", "garbage", "--XyZ\r\nno-blank-line\r\n--XyZ--",
                     "--XyZ\r\nContent-Type: text/plain\r\n\r\nno name\r\n--XyZ--\r\n"] {
            #expect(MultipartForm(Data(text.utf8), contentType: type) == nil, "\(text)")
        }
        #expect(MultipartForm(Data(), contentType: "application/x-www-form-urlencoded") == nil)
        #expect(MultipartForm.boundary("multipart/form-data") == nil)
    }
}
