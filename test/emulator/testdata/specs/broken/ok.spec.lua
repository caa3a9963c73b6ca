return function()
	it("still runs beside broken specs", function()
		expect(#"abc").to.equal(3)
	end)
end
